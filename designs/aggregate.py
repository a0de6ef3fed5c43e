"""Per-scheme agreement and aggregation of a design's answers. Django-free: answers in, plain data out.

An answer is (item, worker, scheme, value). Agreement is Krippendorff's alpha at the scheme type's level
(nominal, ordinal, interval; spans per character, multiselect per label, multirate per row); aggregation is the
design's rule for the scheme, or the type's first: majority, threshold rules (the SemEval 5/5 and 4/5 rules are
one), Dawid-Skene and MACE (crowd-kit), mean and median, Bradley-Terry and best-worst counting scores, spans by
character majority.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from designs.model import Aggregation, Design
from designs.schemes import SCHEME_TYPES
from designs.schemes.span import char_labels

PENDING = "pending"  # a threshold rule's outcome while an item has fewer answers than its min_answers


class Answer(NamedTuple):
    """One worker's answer to one scheme on one item (a tuple: a report reads hundreds of thousands)."""

    item: str
    worker: Any  # any id of the worker, the same for each of their answers (an Annotator for an outside answer)
    scheme: str
    value: Any


class Annotator(NamedTuple):
    """Who gave an outside answer (designs.models.OutsideAnswer): the tool and its name there. As an answer's worker
    it is never equal to a crowd worker's id."""

    source: str
    name: str

    def __str__(self) -> str:
        return f"{self.source}:{self.name}"


@dataclass
class SchemeResult:
    scheme: str
    type: str
    method: str
    level: str | None
    alpha: float | None
    answers: int
    items: dict[str, Any] = field(default_factory=dict)  # item -> aggregated value (None: undecided)
    scores: dict[str, float] = field(default_factory=dict)  # option -> score (pairwise, bws)
    outcomes: dict[str, int] = field(default_factory=dict)  # threshold: outcome -> items
    seen: int = 0  # items answered
    decided: int = 0  # items whose aggregated value is not empty

    def as_json(self) -> dict[str, Any]:
        return {"scheme": self.scheme, "type": self.type, "method": self.method, "level": self.level,
                "alpha": self.alpha, "answers": self.answers, "items": self.items, "scores": self.scores,
                "outcomes": self.outcomes}


def aggregate(design: Design, answers: Iterable[Answer], texts: dict[str, str] | None = None,
              compared: dict[str, list[str]] | None = None) -> dict[str, SchemeResult]:
    """Every answered scheme's agreement and aggregated values, from answers held in memory. `texts` (item ->
    text) are needed for span agreement, `compared` (item -> its options) for pairwise scores. A batch of any size
    is read item by item instead (designs.export.batch_report), with the same accumulators."""
    by_item: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        by_item[answer.item].append(answer)
    accumulators = scheme_accumulators(design, keep_items=True)
    for item, given in by_item.items():
        for accumulator in accumulators:
            accumulator.add(item, given, (texts or {}).get(item, ""), (compared or {}).get(item, []))
    return {accumulator.scheme.name: accumulator.result() for accumulator in accumulators}


def scheme_accumulators(design: Design, *, keep_items: bool = False) -> list[SchemeAccumulator]:
    """One accumulator a scheme that stores answers, in the design's order."""
    return [SchemeAccumulator(scheme, design.aggregation.get(scheme.name), keep_items=keep_items)
            for scheme in design.annotation_schemes if SCHEME_TYPES.of(scheme).answers]


# Methods whose label for an item depends on every item's answers (a model of each worker): their labels are
# known only once every answer has been read.
GLOBAL_METHODS = ("dawid-skene", "mace")


class SchemeAccumulator:
    """One scheme's agreement and aggregation, fed one item's answers at a time, so a batch of any size is read
    with the memory of one item (the global methods, GLOBAL_METHODS, keep every vote of the scheme)."""

    def __init__(self, scheme: Any, rule: Aggregation | None, *, keep_items: bool = False):
        self.scheme, self.kind = scheme, SCHEME_TYPES.of(scheme)
        self.rule = rule or Aggregation(method=self.kind.aggregators[0])
        self.method = self.rule.method
        self.agreement = Agreement(self.kind.level) if self.kind.level else None
        self.keep_items = keep_items
        self.items: dict[str, Any] = {}
        self.answers: int = 0
        self.decided: int = 0
        self.seen: int = 0
        self.outcomes: dict[str, int] = {}
        self.votes: list[tuple[str, str, Any]] = []  # the global methods' input
        self.wins: dict[tuple[str, str], float] = defaultdict(float)  # bradley-terry
        self.options: set[str] = set()
        self.best: Counter[str] = Counter()  # counting (best-worst)
        self.worst: Counter[str] = Counter()
        self.shown: Counter[str] = Counter()
        self.labels: dict[str, Any] | None = None  # the global methods' labels, once inferred

    def add(self, item: str, answers: Iterable[Answer], text: str = "", compared: list[str] | None = None) -> Any:
        """Take one item's answers (any schemes'; each worker's first counts); returns the item's aggregated value
        (for a global method, the inferred label once `finish` ran, else None)."""
        seen, values = set(), []
        for answer in answers:
            if answer.scheme == self.scheme.name and answer.worker not in seen:
                seen.add(answer.worker)
                values.append((answer.worker, answer.value))
        if not values:
            return None
        self.seen += 1
        self.answers += len(values)
        if self.agreement is not None:
            self._agree(values, text)
        if self.method in GLOBAL_METHODS:
            if self.labels is None:
                self.votes += [(item, worker, value) for worker, value in values]
                return None
            value = self.labels.get(item)
        else:
            value = self._one([value for _, value in values], text)
            self._score(values, compared or [])
        # A threshold rule's pending item waits for answers (a label of that name under another method is one).
        if value not in (None, [], {}) and not (self.method == "threshold" and value == PENDING):
            self.decided += 1
        if self.keep_items:
            self.items[item] = value
        return value

    def _agree(self, values: list[tuple[str, Any]], text: str) -> None:
        units: dict[Any, list[Any]] = defaultdict(list)
        for _, value in values:
            for unit, coded in self.kind.units(self.scheme, value, text).items():
                units[unit].append(coded)
        for coded in units.values():
            assert self.agreement is not None
            self.agreement.add(coded)

    def _one(self, values: list[Any], text: str) -> Any:
        method, rule = self.method, self.rule
        if method == "none":
            return values
        if method in ("mean", "median"):
            return central(values, statistics.fmean if method == "mean" else statistics.median)
        if method == "threshold":
            outcome = PENDING if rule.min_answers and len(values) < rule.min_answers else threshold(values, rule)
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
            return outcome
        if method == "spans":
            return majority_spans(text, values)
        return self.kind.combine(self.scheme, values)

    def _score(self, values: list[tuple[str, Any]], compared: list[str]) -> None:
        if self.method == "bradley-terry":
            for _, value in values:
                _count_win(self.wins, self.options, compared, value, self.scheme)
        elif self.method == "counting":
            for _, value in values:
                for option in compared:
                    self.shown[option] += 1
                self.best[value["best"]] += 1
                self.worst[value["worst"]] += 1

    def finish(self) -> None:
        """Infer a global method's labels from every vote read (then `add` again gives each item its label)."""
        if self.method in GLOBAL_METHODS and self.labels is None:
            from aggregation.methods import infer

            votes = self.votes
            if any(isinstance(worker, Annotator) for _, worker, _ in votes):
                # Crowd workers' ids and outside annotators side by side: all as text, which one table sorts.
                votes = [(item, str(worker), value) for item, worker, value in votes]
            self.labels = dict(infer(votes, self.method).labels) if votes else {}
            self.votes = []

    def result(self) -> SchemeResult:
        if self.method in GLOBAL_METHODS and self.labels is None:
            self.finish()
            labels: dict[str, Any] = self.labels or {}
            self.decided = len(labels) - sum(label is None for label in labels.values())
            if self.keep_items:
                self.items = dict(self.labels or {})
        found = SchemeResult(self.scheme.name, self.scheme.annotation_type, self.method, self.kind.level,
                             self.agreement.alpha() if self.agreement is not None else None, self.answers,
                             items=self.items, outcomes=dict(self.outcomes))
        found.decided, found.seen = self.decided, self.seen
        if self.method == "bradley-terry":
            found.scores = bradley_terry_strengths(self.wins, self.options)
        elif self.method == "counting":
            found.scores = _best_worst(self.best, self.worst, self.shown)
        return found


def central(values: list[Any], average: Callable[[list[float]], float]) -> Any:
    """The mean or median of numbers; of answers that are numbers by name (a range's ends, points per label),
    each name's, a name an answer leaves out counting as 0 there (a label given no points)."""
    if values and all(isinstance(value, dict) for value in values):
        names = list(dict.fromkeys(name for value in values for name in value))
        return {name: central([value.get(name, 0) for value in values], average) for name in names}
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return round(average(numbers), 4) if numbers else None


# --- agreement ---------------------------------------------------------------------------------------

class Agreement:
    """Krippendorff's alpha accumulated unit by unit from the coincidences of the values each unit was given
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"), over the units two or more coders answered:
    nominal and ordinal keep the coincidence counts of each pair of values, interval only the sums it needs, so
    memory follows the distinct values, not the units. None when nothing can be compared or nothing varies."""

    def __init__(self, level: str):
        self.level = level
        self.pairs: dict[tuple[Any, Any], float] = defaultdict(float)
        self.n = 0  # pairable values
        self.sum = self.squares = self.observed = 0.0  # interval: sums of values, of squares, of unit disagreement
        self.first: Any = None
        self.varied = False

    def add(self, values: list[Any]) -> None:
        """One unit's values, a coder each."""
        m = len(values)
        if m < 2:
            return
        coded: list[Any]
        if self.level == "nominal":
            coded = [repr(value) for value in values]
        else:
            coded = [float(value) for value in values]
        if self.first is None:
            self.first = coded[0]
        self.varied = self.varied or any(code != self.first for code in coded)
        self.n += m
        if self.level == "interval":
            total, squares = sum(coded), sum(code * code for code in coded)
            self.sum += total
            self.squares += squares
            self.observed += (2 * m * squares - 2 * total * total) / (m - 1)
            return
        counts = Counter(coded)
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                self.pairs[c, k] += n_c * (n_k - (c == k)) / (m - 1)

    def alpha(self) -> float | None:
        if not self.n or not self.varied:
            return None
        if self.level == "interval":
            expected = (2 * self.n * self.squares - 2 * self.sum * self.sum) / (self.n - 1)
            return 1 - self.observed / expected if expected else None
        marginal: dict[Any, float] = defaultdict(float)
        for (c, _), count in self.pairs.items():
            marginal[c] += count
        delta = self._ordinal(marginal) if self.level == "ordinal" else (lambda c, k: float(c != k))
        observed = sum(count * delta(c, k) for (c, k), count in self.pairs.items())
        expected = sum(n_c * n_k * delta(c, k) for c, n_c in marginal.items() for k, n_k in marginal.items())
        expected /= self.n - 1
        return 1 - observed / expected if expected else None

    @staticmethod
    def _ordinal(marginal: dict[Any, float]) -> Callable[[Any, Any], float]:
        """The ordinal distance: the values ranked between two values, by how often each was given."""
        ranked = sorted(marginal)
        cumulative, running = {}, 0.0
        for value in ranked:
            running += marginal[value]
            cumulative[value] = running

        def delta(c: Any, k: Any) -> float:
            low, high = (c, k) if c <= k else (k, c)
            between = cumulative[high] - cumulative[low] + marginal[low]
            return (between - (marginal[c] + marginal[k]) / 2) ** 2
        return delta


# --- aggregation --------------------------------------------------------------------------------------

def threshold(values: list[Any], rule: Aggregation) -> str:
    """The first rule that holds: at least `min_votes` (or `min_share`) of the votes are its label."""
    total = len(values)
    for row in rule.rules:
        count = sum(1 for value in values if row.label is None or _same(value, row.label))
        if row.min_votes is not None and count < row.min_votes:
            continue
        if row.min_share is not None and (not total or count / total < row.min_share - 1e-9):
            continue
        return row.outcome
    return rule.otherwise


def _same(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return ("yes" if value else "no") == label
    return str(value) == label


def majority_spans(text: str, answers: list[Any]) -> list[dict[str, Any]]:
    """Per label, the characters more than half of the annotators marked with it, as spans."""
    if not answers:
        return []
    rows = [char_labels(text, spans) for spans in answers]
    found: list[dict[str, Any]] = []
    start = None
    current = ""
    for index in range(len(text) + 1):
        label = ""
        if index < len(text):
            counts = Counter(row[index] for row in rows)
            top, count = counts.most_common(1)[0]
            label = top if top and count * 2 > len(rows) else ""
        if label != current:
            if current and start is not None:
                found.append({"start": start, "end": index, "label": current, "text": text[start:index]})
            start, current = index, label
    return [span for span in found if span["text"].strip()]


def _count_win(wins: dict[tuple[str, str], float], options: set[str], pair: list[str], value: Any, scheme) -> None:
    if len(pair) != 2 or scheme.mode != "binary":
        return
    first, second = (label.name for label in scheme.labels[:2])
    a, b = pair
    options.update(pair)
    if value == first:
        wins[(a, b)] += 1
    elif value == second:
        wins[(b, a)] += 1
    else:
        wins[(a, b)] += .5
        wins[(b, a)] += .5


def bradley_terry_strengths(wins: dict[tuple[str, str], float], options: set[str],
                            iterations: int = 200) -> dict[str, float]:
    names = sorted(options)
    if len(names) < 2:
        return {}
    wins = defaultdict(float, wins)
    strength = {name: 1.0 for name in names}
    total_wins = {name: sum(count for (winner, _), count in wins.items() if winner == name) for name in names}
    for _ in range(iterations):
        updated = {}
        for name in names:
            denominator = sum((wins[(name, other)] + wins[(other, name)]) / (strength[name] + strength[other])
                              for other in names if other != name)
            updated[name] = max(total_wins[name], 1e-3) / denominator if denominator else strength[name]
        scale = len(names) / sum(updated.values())
        strength = {name: value * scale for name, value in updated.items()}
    return {name: round(value, 4) for name, value in sorted(strength.items(), key=lambda kv: -kv[1])}


def _best_worst(best: Counter[str], worst: Counter[str], shown: Counter[str]) -> dict[str, float]:
    return {option: round((best[option] - worst[option]) / count, 4)
            for option, count in sorted(shown.items(), key=lambda kv: -(best[kv[0]] - worst[kv[0]]) / kv[1])}
