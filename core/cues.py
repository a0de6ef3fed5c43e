"""Superficial cues (Niven and Kao 2019, as Balanced COPA measures them): tokens whose presence
predicts the answer without the task being understood.

For 2-choice data a token k is *applicable* to an instance when it appears in exactly one of the two
alternatives; its *productivity* is the share of those instances where that alternative is the right
one, and its *coverage* the share of all instances it applies to. Balanced COPA reports "a" applicable
to 21.2% of COPA's training instances with productivity 57.5%. For labelled sentences (the SemEval
export) a token applies to the sentences that contain it, and its productivity is the share of them
with the positive label, to be read against that label's overall share.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass

_TOKEN = re.compile(r"[\w']+")


def tokens(text: str) -> set[str]:
    return {token.lower() for token in _TOKEN.findall(text)}


@dataclass(frozen=True)
class Cue:
    token: str
    applicable: int  # instances the token applies to
    productive: int  # of those, where it sits with the right answer (or the positive label)
    coverage: float
    productivity: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class CueReport:
    instances: int
    baseline: float  # the productivity of a token that says nothing: 0.5, or the positive share
    cues: list[Cue]  # every token, strongest first
    imbalance: float  # mean |productivity - baseline| over all applications: 0 when no token tells anything

    def strongest(self, count: int = 10, minimum: int = 5) -> list[Cue]:
        return [cue for cue in self.cues if cue.applicable >= minimum][:count]

    def find(self, token: str) -> Cue | None:
        return next((cue for cue in self.cues if cue.token == token), None)

    def table(self, top: int = 10, minimum: int = 5) -> str:
        """The strongest cues (tokens applying to at least `minimum` instances) as a text table."""
        lines = [f"{self.instances} instances; imbalance (mean |productivity - {self.baseline:.3f}| over all "
                 f"applications) {self.imbalance:.3f}",
                 f"{'token':<14} {'applicable':>10} {'coverage':>9} {'productivity':>12}"]
        lines += [f"{cue.token:<14} {cue.applicable:>10} {cue.coverage:>9.1%} {cue.productivity:>12.1%}"
                  for cue in self.strongest(top, minimum)]
        return "\n".join(lines)


def _report(applicable: Counter[str], productive: Counter[str], instances: int, baseline: float) -> CueReport:
    cues = [Cue(token, count, productive[token], count / instances, productive[token] / count)
            for token, count in applicable.items()]
    # Strongest: the most instances decided beyond chance, i.e. coverage × |productivity − baseline|.
    cues.sort(key=lambda cue: (-cue.coverage * abs(cue.productivity - baseline), cue.token))
    total = sum(applicable.values())
    imbalance = (sum(cue.applicable * abs(cue.productivity - baseline) for cue in cues) / total) if total else 0.0
    return CueReport(instances, baseline, cues, imbalance)


def choice_cues(instances: Iterable[tuple[str, str]]) -> CueReport:
    """Cues of 2-choice data from (right alternative, wrong alternative) pairs."""
    applicable: Counter[str] = Counter()
    productive: Counter[str] = Counter()
    count = 0
    for right, wrong in instances:
        count += 1
        in_right, in_wrong = tokens(right), tokens(wrong)
        applicable.update(in_right ^ in_wrong)
        productive.update(in_right - in_wrong)
    return _report(applicable, productive, max(count, 1), 0.5)


def label_cues(sentences: Iterable[tuple[str, int]]) -> CueReport:
    """Cues of labelled sentences from (text, label 0/1) pairs; the baseline is the share labelled 1."""
    applicable: Counter[str] = Counter()
    productive: Counter[str] = Counter()
    count = positives = 0
    for text, label in sentences:
        count += 1
        positives += label == 1
        found = tokens(text)
        applicable.update(found)
        if label == 1:
            productive.update(found)
    return _report(applicable, productive, max(count, 1), positives / count if count else 0.0)
