"""Reading one item's answers under a design: each visible scheme read by its type, display logic applied,
required schemes checked. Django-free: the task type hands in the form as a plain mapping."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from designs.model import Condition, Design
from designs.schemes import SCHEME_TYPES, AnswerProblem, Record
from designs.schemes.base import Fields

logger = logging.getLogger(__name__)


def field_prefix(item_key: Any, index: int) -> str:
    """The form field of scheme number `index` (its place in the design) on one item: "a-<item>-<index>"."""
    return f"a-{item_key}-{index}"


def read_item(design: Design, record: Record, raw: Mapping[str, Any], item_key: Any,
              schemes: list[str] | None = None, facts: Mapping[str, Any] | None = None
              ) -> tuple[dict[str, Any], list[str]]:
    """({scheme: answer} of the visible answered schemes, [required visible schemes left empty]).
    AnswerProblem names the scheme. `schemes` limits the read to a stage's schemes; `facts` are what display logic
    may test beside the answers (the person's condition, {"condition.<factor>": level})."""
    answers: dict[str, Any] = {}
    asked = [(index, scheme) for index, scheme in enumerate(design.annotation_schemes)
             if schemes is None or scheme.name in schemes]
    for index, scheme in asked:
        try:
            value = SCHEME_TYPES.get(scheme.annotation_type).read(scheme, Fields(raw, field_prefix(item_key, index)),
                                                                 record)
        except AnswerProblem as problem:
            raise AnswerProblem(f"{scheme.description or scheme.name}: {problem}") from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
            # A form the page would not send (edited by hand, or by a script) is the sender's to mend, not a crash;
            # the type that could not read it is logged, so it can learn to say why.
            logger.exception("%s could not read the form of scheme %r", scheme.annotation_type, scheme.name)
            raise AnswerProblem(f"{scheme.description or scheme.name}: the answer sent could not be read; reload "
                                f"the page and answer it again") from None
        if value is not None:
            answers[scheme.name] = value
    for _, scheme in asked:
        if scheme.name in answers:
            try:
                SCHEME_TYPES.of(scheme).check_answers(scheme, answers[scheme.name], answers)
            except AnswerProblem as problem:
                raise AnswerProblem(f"{scheme.description or scheme.name}: {problem}") from None
    missing = []
    for _, scheme in asked:
        if not visible(scheme, {**answers, **(facts or {})}):
            answers.pop(scheme.name, None)  # an answer to a scheme its logic hides does not count
        elif scheme.required and scheme.name not in answers:
            missing.append(scheme.name)
    return answers, missing


def read_values(design: Design, record: Record, values: Mapping[str, Any]) -> tuple[dict[str, Any],
                                                                                  list[tuple[str, str]]]:
    """Answers given as values ({scheme: value}: a model's JSON, another tool's results as a type reads them) read as
    a person's are: each through the form fields its widget would send and the type's `read`, then the checks
    across schemes, so what a page could not send is refused. ({scheme: answer}, [(scheme, why it was left out)]);
    a name no scheme has is left out by name too."""
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    fields: dict[str, dict[str, str]] = {}
    problems = []
    for name, value in values.items():
        if name not in schemes or value is None:
            fields[name] = {}
            continue
        try:
            fields[name] = SCHEME_TYPES.of(schemes[name]).form_fields(schemes[name], value, record)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as problem:
            problems.append((name, str(problem)))
            continue
        if not fields[name]:
            problems.append((name, f"{value!r} is no answer it takes"))
    answers, unread = read_fields(design, record, {name: found for name, found in fields.items()
                                                   if found or name not in schemes})
    return answers, problems + unread


def read_fields(design: Design, record: Record, fields: Mapping[str, Mapping[str, str]]) -> tuple[
        dict[str, Any], list[tuple[str, str]]]:
    """Answers given as the form fields each scheme's widget would send ({scheme: {part: text}}, "" its own field)
    read by the schemes' types, then checked across schemes: (answers, [(scheme, why it was left out)]), as
    read_values."""
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    answers: dict[str, Any] = {}
    problems = [(name, f"the design has no scheme {name!r}") for name in fields if name not in schemes]
    for name, scheme in schemes.items():
        if not fields.get(name):
            continue
        kind = SCHEME_TYPES.of(scheme)
        try:
            answer = kind.read(scheme, Fields({(f"s-{part}" if part else "s"): text
                                               for part, text in fields[name].items()}, "s"), record)
        except (AnswerProblem, KeyError, TypeError, ValueError, AttributeError, RecursionError) as problem:
            problems.append((name, str(problem)))
            continue
        if answer is None:  # fields were sent and nothing came of them: said, never lost without a word
            problems.append((name, "nothing in it reads as an answer"))
        else:
            answers[name] = answer
    for name in list(answers):
        try:
            SCHEME_TYPES.of(schemes[name]).check_answers(schemes[name], answers[name], answers)
        except AnswerProblem as problem:
            problems.append((name, str(problem)))
            del answers[name]
    return answers, problems


def known_answer(answer: Any, scheme: str) -> Any:
    """A known (gold) answer's value for one scheme: {scheme: value} from a design, or the one label of a released
    file."""
    return answer.get(scheme) if isinstance(answer, dict) else answer


def visible(scheme: Any, answers: Mapping[str, Any]) -> bool:
    logic = scheme.display_logic
    if logic is None:
        return True
    results = [holds(condition, answers.get(condition.schema_)) for condition in logic.show_when]
    return all(results) if logic.logic == "all" else any(results)


def holds(condition: Condition, answer: Any) -> bool:
    wanted = condition.value if isinstance(condition.value, list) else [condition.value]
    wanted = [_text(value) for value in wanted]
    if condition.operator == "answered":
        return answer not in (None, "", [], {})
    if condition.operator == "empty":
        return answer in (None, "", [], {})
    if answer is None:
        return False  # a scheme not answered yet shows nothing that depends on its answer
    if condition.operator in NUMERIC:
        return _compare(condition.operator, condition.value, answer)
    # A list (multiselect) or a {row: label} answer (multirate) holds several values: equals means any of them is
    # wanted, not_equals none is ("no row answered no" reads `not_equals: "no"`).
    values = list(answer.values()) if isinstance(answer, dict) else answer
    found = [_text(value) for value in values] if isinstance(values, list) else [_text(values)]
    if condition.operator in ("equals", "not_equals"):
        hit = any(value in wanted for value in found)
        return hit if condition.operator == "equals" else not hit
    hit = any(want in value for want in wanted for value in found)
    return hit if condition.operator == "contains" else not hit


NUMERIC = ("gt", "gte", "lt", "lte", "in_range", "not_in_range")


def _compare(operator: str, wanted: Any, answer: Any) -> bool:
    """A numeric condition (a likert point, a slider or number value); an answer that is no number fails it."""
    number = _number(answer)
    if number is None:
        return False
    if operator in ("in_range", "not_in_range"):
        low, high = (_number(part) for part in (wanted if isinstance(wanted, list) and len(wanted) == 2
                                                  else (None, None)))
        inside = low is not None and high is not None and low <= number <= high
        return inside if operator == "in_range" else not inside
    bound = _number(wanted)
    if bound is None:
        return False
    return {"gt": number > bound, "gte": number >= bound, "lt": number < bound, "lte": number <= bound}[operator]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
