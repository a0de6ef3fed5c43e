"""A language model asked as one more annotator: a design's item as chat messages, the answer asked for as JSON
whose schema the scheme types give, and the reply read as a person's answers are. Django-free; nothing is sent
here (designs.model_runs runs it against an endpoint)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from designs.answers import read_values, visible
from designs.model import Design
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import Record

SYSTEM = ("You annotate items for a research study, as a careful human annotator would. Reply with one JSON object "
          "holding your answer to each question, under the question's name, in the form its JSON Schema gives; "
          "leave out a question you are not asked to answer.")
CHARS_PER_TOKEN = 4  # a rough count for estimates: English text runs about four characters a token
TEMPLATE_TOKENS = 32  # room for a chat template's tokens around each message (roles, separators)


class Refused(Exception):
    """A reply that is no answer (not JSON, not an object, a required question left out, nothing that fits):
    kept with its raw text, never stored as answers."""


@dataclass(frozen=True)
class Example:
    """A known-answer item shown to the model as a worked example."""

    record: Record
    answers: dict[str, Any]


def asked(design: Design) -> list[Any]:
    """The schemes a model answers: those that take answers, but for those whose answers name what the batch's
    workers keep together on the site (events across documents), which a model, no worker of the batch, never sees."""
    return [scheme for scheme in design.annotation_schemes
            if SCHEME_TYPES.of(scheme).answers and not SCHEME_TYPES.of(scheme).keeps_shared]


def answer_schema(design: Design, reverse: bool = False) -> dict[str, Any]:
    """The JSON Schema of one item's answers: each asked scheme's answer (its type's answer_schema), the required
    ones that no condition hides required. `reverse` lists each scheme's options the other way round (the position
    check)."""
    schemes = asked(design)
    return {"type": "object", "additionalProperties": False,
            "properties": {scheme.name: _reversed(SCHEME_TYPES.of(scheme).answer_schema(scheme)) if reverse else
                           SCHEME_TYPES.of(scheme).answer_schema(scheme) for scheme in schemes},
            "required": [scheme.name for scheme in schemes if scheme.required and scheme.display_logic is None]}


def _reversed(schema: Any) -> Any:
    """A schema with every enum's options the other way round."""
    if isinstance(schema, dict):
        return {key: list(reversed(value)) if key == "enum" and isinstance(value, list) else _reversed(value)
                for key, value in schema.items()}
    return [_reversed(entry) for entry in schema] if isinstance(schema, list) else schema


def _item(design: Design, record: Record) -> str:
    fields = record.fields
    before = [f"{key}: {_shown(fields[key])}" for key in design.items.show if key in fields]
    after = [f"{key}: {_shown(fields[key])}" for key in design.items.show_after if key in fields]
    return "\n".join([*before, f"Text: {record.text}" if record.text else "", *after]).strip()


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _questions(design: Design, reverse: bool = False, record: Record | None = None) -> str:
    lines = []
    for scheme in asked(design):
        labels = [f"{label.name}" + (f" ({label.description})" if label.description and label.description !=
                                     label.name else "") for label in getattr(scheme, "labels", None) or []
                  if hasattr(label, "name")]
        labels = labels[::-1] if reverse else labels
        line = f"- {scheme.name}: {scheme.description or scheme.name}"
        if scheme.instructions:  # what the page says under the question (a randomized response's question)
            line += f" ({' '.join(scheme.instructions.split())})"
        if labels:
            line += f" Options: {', '.join(labels)}."
        told = SCHEME_TYPES.get(scheme.annotation_type).told(scheme, record)
        if told:
            line += f" {told}"
        if scheme.display_logic is not None:
            line += " (Answer only if it applies.)"
        lines.append(line)
    return "\n".join(lines)


def messages(design: Design, record: Record, examples: Sequence[Example] = (),
             reverse: bool = False) -> list[dict[str, str]]:
    """The chat messages that ask for one item's answers: the study's instructions (and the design's own prompt for
    models), the questions, each worked example as a question answered, then the item. `reverse` lists each
    question's options the other way round (the position check)."""
    system = "\n\n".join(part for part in (SYSTEM, design.instructions, design.llm.prompt) if part)
    found = [{"role": "system", "content": system}]
    for example in examples:
        found.append({"role": "user", "content": f"Questions:\n{_questions(design, reverse, example.record)}\n\n"
                                                 f"Item:\n{_item(design, example.record)}"})
        found.append({"role": "assistant", "content": json.dumps(example.answers, ensure_ascii=False)})
    found.append({"role": "user", "content": f"Questions:\n{_questions(design, reverse, record)}\n\n"
                                             f"Item:\n{_item(design, record)}"})
    return found


def prompt_version(design: Design, model: str, samples: int = 1) -> str:
    """Eight hex digits that change when what the model is told or how it samples changes (the samples an answer
    is the majority of, too): part of the model's name as an annotator, so answers under another prompt are another
    annotator's."""
    said = json.dumps([SYSTEM, design.instructions, design.llm.model_dump(exclude={"model"}), model,
                       answer_schema(design), _questions(design), *([samples] if samples > 1 else [])],
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(said.encode("utf-8")).hexdigest()[:8]


def estimate_tokens(design: Design, records: Sequence[Record], examples: Sequence[Example] = ()) -> dict[str, int]:
    """What asking every record takes in tokens: `tokens_in`, an estimate (characters over four, as English text
    runs), `most_tokens_in`, a bound (a token holds at least one byte of UTF-8, and each message and the schema are
    counted whole, with room for the chat template's own tokens), and `most_tokens_out`, max_tokens an answer. The
    budget is checked against the bounds; the endpoint's usage is what is charged."""
    schema = json.dumps(answer_schema(design))
    typical = most = 0
    for record in records:
        said = messages(design, record, examples)
        characters = sum(len(message["content"]) for message in said) + len(schema)
        typical += characters // CHARS_PER_TOKEN + 1
        most += sum(len(message["content"].encode("utf-8")) + TEMPLATE_TOKENS for message in said) + len(
            schema.encode("utf-8"))
    return {"tokens_in": typical, "most_tokens_in": most, "most_tokens_out": design.llm.max_tokens * len(records)}


def settle(design: Design, readings: Sequence[dict[str, Any]], asked_times: int) -> tuple[dict[str, Any],
                                                                                      dict[str, float]]:
    """Several samples' answers to one item as one answer: each scheme's most given value (the first given among
    ties), and its confidence, the share of the samples asked that gave it (a sample that was no answer counts
    against it)."""
    answers: dict[str, Any] = {}
    confidence: dict[str, float] = {}
    for scheme in asked(design):
        given = [json.dumps(reading[scheme.name], sort_keys=True) for reading in readings if scheme.name in reading]
        if not given:
            continue
        counts: dict[str, int] = {}
        for value in given:
            counts[value] = counts.get(value, 0) + 1
        best = max(counts, key=lambda value: (counts[value], -given.index(value)))
        answers[scheme.name] = json.loads(best)
        confidence[scheme.name] = round(counts[best] / asked_times, 4)
    return answers, confidence


def read_reply(design: Design, record: Record, content: str | None,
               finish_reason: str | None = None) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A reply's answers, read as a person's are (designs.answers.read_values): ({scheme: answer}, [(scheme, why
    left out)]). Refused when it is no answer at all."""
    if finish_reason == "length":
        raise Refused("the answer was cut off at max_tokens; raise llm.max_tokens")
    try:
        values = json.loads(content or "")
    except json.JSONDecodeError as error:
        raise Refused(f"the reply is not JSON ({error.msg} at character {error.pos})") from None
    if not isinstance(values, dict):
        raise Refused(f"the reply is a JSON {type(values).__name__}, not an object of answers")
    answers, problems = read_values(design, record, values)
    for scheme in asked(design):
        if not visible(scheme, answers):
            answers.pop(scheme.name, None)  # an answer to a question its condition hides does not count
    missing = [scheme.name for scheme in asked(design) if scheme.required and visible(scheme, answers)
               and scheme.name not in answers]
    if missing or not answers:
        why = "; ".join(f"{name}: {problem}" for name, problem in problems)
        raise Refused((f"required {', '.join(missing)} not answered" if missing else "nothing in it fits a question")
                      + (f" ({why})" if why else ""))
    return answers, problems


def logprob_confidence(content: str | None, tokens: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Each top-level answer's confidence from the reply's token log-probabilities: the probability the model gave
    the tokens of that answer's value (a label's, a number's, a list's), exp of their summed log-probabilities. {}
    when the tokens do not spell the reply (a server that sends them otherwise) or the reply is not a JSON object."""
    text = "".join(token for token, _ in tokens)
    if not content or text.strip() != content.strip():
        return {}
    decoder = json.JSONDecoder()
    spans: dict[str, tuple[int, int]] = {}
    try:
        at = _skip(text, 0)
        if text[at] != "{":
            return {}
        at = _skip(text, at + 1)
        while text[at] != "}":
            key, at = decoder.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] != ":":
                return {}
            start = _skip(text, at + 1)
            _, at = decoder.raw_decode(text, start)
            spans[str(key)] = (start, at)
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
    except (ValueError, IndexError):
        return {}
    starts, position = [], 0
    for token, _ in tokens:
        starts.append(position)
        position += len(token)
    found = {}
    for key, (start, end) in spans.items():
        total = sum(logprob for (token, logprob), first in zip(tokens, starts, strict=True)
                    if first < end and first + len(token) > start)
        found[key] = float(f"{min(1.0, math.exp(total)):.4g}")  # four figures: a small probability stays above 0
    return found


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
