"""A practice round asked one item at a time with feedback after each answer, as Potato's training phase runs it
(potato/routes.py `training`, 2.12): an item answered wrong may be tried again, mistakes in all and on one item can
end the round, the round passes as soon as enough items are right, and a round that falls short may start again.
No Django here: the rules read a test's settings and change an attempt's progress, a JSON dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# How a round ends, said on the result page.
PASSED, TOO_MANY, TOO_MANY_ON_ONE, NO_RETRY, SHORT = "passed", "too-many", "too-many-on-one", "no-retry", "short"
ENDINGS = {
    PASSED: "You answered enough practice items right.",
    TOO_MANY: "You made more mistakes than this practice round allows.",
    TOO_MANY_ON_ONE: "You made too many mistakes on one item.",
    NO_RETRY: "You answered an item wrong, and this practice round does not let an item be tried again.",
    SHORT: "You did not answer enough practice items right.",
}


@dataclass(frozen=True)
class Practice:
    """Potato's training settings: `passing_criteria` (min_correct, require_all_correct, max_mistakes,
    max_mistakes_per_question, max_attempts), `allow_retry` (Potato's default: on) and `failure_action`
    (`move_to_done`, Potato's default, ends the round at a wrong answer that cannot be retried; `repeat_training`
    goes on and starts the round again when it falls short). None is no limit."""

    min_correct: int
    require_all: bool = False
    max_mistakes: int | None = None
    max_mistakes_per_item: int | None = None
    retry: bool = True
    repeat: bool = False
    max_rounds: int | None = None

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> Practice | None:
        """The rules a test stores (QualificationTest.practice); None for a test answered all at once."""
        if not settings:
            return None
        return cls(**{key: settings[key] for key in cls.__dataclass_fields__ if key in settings})

    def stored(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.__dataclass_fields__}


@dataclass(frozen=True)
class Step:
    """What one answer did: whether it was right, whether the item is tried again, and the round's end if it
    ended (one of ENDINGS' keys, passed or not)."""

    right: bool
    again: bool
    ended: str = ""


def start() -> dict[str, Any]:
    return {"at": 0, "right": [], "tries": {}, "mistakes": 0, "round": 1, "said": None}


def answer(rules: Practice, progress: dict[str, Any], items: Sequence[int], item: int, right: bool) -> Step:
    """Take an answer to the current item (`items` are the round's item keys in order) and change `progress`.
    A retried item answered right counts as right, as in Potato; mistakes carry over into a repeated round, so
    `max_mistakes` ends the round whatever else is set."""
    key = str(item)
    if right:
        if item not in progress["right"]:
            progress["right"].append(item)
        if not rules.require_all and len(progress["right"]) >= rules.min_correct:
            return Step(True, False, PASSED)
        return _next(rules, progress, items, Step(True, False))
    progress["mistakes"] += 1
    progress["tries"][key] = progress["tries"].get(key, 0) + 1
    if rules.max_mistakes and progress["mistakes"] >= rules.max_mistakes:
        return Step(False, False, TOO_MANY)
    if rules.max_mistakes_per_item and progress["tries"][key] >= rules.max_mistakes_per_item:
        return Step(False, False, TOO_MANY_ON_ONE)
    if rules.retry:
        return Step(False, True)
    if not rules.repeat:
        return Step(False, False, NO_RETRY)
    return _next(rules, progress, items, Step(False, False))


def _next(rules: Practice, progress: dict[str, Any], items: Sequence[int], step: Step) -> Step:
    progress["at"] += 1
    if progress["at"] < len(items):
        return step
    right = len(progress["right"])
    if right >= rules.min_correct and (not rules.require_all or right >= len(items)):
        return Step(step.right, False, PASSED)
    if rules.repeat and (rules.max_rounds is None or progress["round"] < rules.max_rounds):
        progress.update(at=0, right=[], round=progress["round"] + 1)
        return step
    return Step(step.right, False, SHORT)
