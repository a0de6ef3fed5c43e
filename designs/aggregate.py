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
from typing import Any

import numpy as np

from designs.model import Aggregation, Design
from designs.schemes import SCHEME_TYPES
from designs.schemes.span import char_labels


@dataclass(frozen=True)
class Answer:
    item: str
    worker: str
    scheme: str
    value: Any


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

    def as_json(self) -> dict[str, Any]:
        return {"scheme": self.scheme, "type": self.type, "method": self.method, "level": self.level,
                "alpha": self.alpha, "answers": self.answers, "items": self.items, "scores": self.scores,
                "outcomes": self.outcomes}


def aggregate(design: Design, answers: Iterable[Answer], texts: dict[str, str] | None = None,
              compared: dict[str, list[str]] | None = None) -> dict[str, SchemeResult]:
    """Every answered scheme's agreement and aggregated values. `texts` (item -> text) are needed for span
    agreement, `compared` (item -> its options) for pairwise scores."""
    by_scheme: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        by_scheme[answer.scheme].append(answer)
    results = {}
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.answers:
            continue
        rule = design.aggregation.get(scheme.name) or Aggregation(method=kind.aggregators[0])
        found = _first_per_worker(by_scheme.get(scheme.name, []))
        result = SchemeResult(scheme.name, scheme.annotation_type, rule.method, kind.level, None, len(found))
        result.alpha = _alpha(scheme, kind, found, texts or {})
        _combine(result, scheme, rule, found, texts or {}, compared or {})
        results[scheme.name] = result
    return results


def _first_per_worker(answers: list[Answer]) -> list[Answer]:
    seen, kept = set(), []
    for answer in answers:
        if (answer.item, answer.worker) not in seen:
            seen.add((answer.item, answer.worker))
            kept.append(answer)
    return kept


# --- agreement ---------------------------------------------------------------------------------------

def _alpha(scheme, kind, answers: list[Answer], texts: dict[str, str]) -> float | None:
    if kind.level is None or not answers:
        return None
    cells: dict[tuple, dict[str, Any]] = defaultdict(dict)  # unit -> worker -> value
    for answer in answers:
        for unit, value in kind.units(scheme, answer.value, texts.get(answer.item, "")).items():
            cells[(answer.item, unit)][answer.worker] = value
    return krippendorff_alpha(cells, kind.level)


def krippendorff_alpha(cells: dict[Any, dict[str, Any]], level: str) -> float | None:
    """Alpha over units that two or more coders answered; None when there is nothing to compare or no
    variation at all (alpha is undefined then)."""
    import krippendorff

    units = [unit for unit, coded in cells.items() if len(coded) >= 2]
    if not units:
        return None
    workers = sorted({worker for unit in units for worker in cells[unit]})
    values = sorted({repr(value) for unit in units for value in cells[unit].values()})
    if len(values) < 2:
        return None
    encode: Callable[[Any], float]
    if level == "nominal":
        codes = {value: number for number, value in enumerate(values)}
        encode = lambda value: codes[repr(value)]  # noqa: E731
    else:
        encode = float
    matrix = np.full((len(workers), len(units)), np.nan)
    column = {worker: row for row, worker in enumerate(workers)}
    for index, unit in enumerate(units):
        for worker, value in cells[unit].items():
            matrix[column[worker], index] = encode(value)
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))  # type: ignore[arg-type]


# --- aggregation --------------------------------------------------------------------------------------

def _combine(result: SchemeResult, scheme, rule: Aggregation, answers: list[Answer], texts: dict[str, str],
             compared: dict[str, list[str]]) -> None:
    per_item: dict[str, list[Any]] = defaultdict(list)
    for answer in answers:
        per_item[answer.item].append(answer.value)
    method = rule.method
    if method in ("dawid-skene", "mace"):
        from aggregation.methods import infer

        inference = infer([(a.item, a.worker, a.value) for a in answers], method)
        result.items = dict(inference.labels)
        return
    for item, values in per_item.items():
        result.items[item] = _one(method, scheme, rule, values, texts.get(item, ""), result)
    if method == "bradley-terry":
        result.scores = bradley_terry([(compared.get(a.item, []), a.value) for a in answers], scheme)
    elif method == "counting":
        result.scores = best_worst_scores([(a.item, a.value) for a in answers], compared)


def _one(method: str, scheme, rule: Aggregation, values: list[Any], text: str, result: SchemeResult) -> Any:
    if method == "none":
        return values
    if method in ("mean", "median"):
        numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if not numbers:
            return None
        return round(statistics.fmean(numbers) if method == "mean" else statistics.median(numbers), 4)
    if method == "threshold":
        outcome = "pending" if rule.min_answers and len(values) < rule.min_answers else threshold(values, rule)
        result.outcomes[outcome] = result.outcomes.get(outcome, 0) + 1
        return outcome
    if method == "spans":
        return majority_spans(text, values)
    return SCHEME_TYPES.of(scheme).combine(scheme, values)


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


def bradley_terry(comparisons: list[tuple[list[str], Any]], scheme, iterations: int = 200) -> dict[str, float]:
    """Bradley-Terry strengths (summing to the number of options) from binary pairwise answers, by the
    minorization-maximization updates of Hunter (2004); a tie counts half a win each way."""
    labels = [label.name for label in scheme.labels[:2]]
    wins: dict[tuple[str, str], float] = defaultdict(float)
    options: set[str] = set()
    for pair, value in comparisons:
        if len(pair) != 2 or scheme.mode != "binary":
            continue
        a, b = pair
        options.update(pair)
        if value == labels[0]:
            wins[(a, b)] += 1
        elif value == labels[1]:
            wins[(b, a)] += 1
        else:
            wins[(a, b)] += .5
            wins[(b, a)] += .5
    names = sorted(options)
    if len(names) < 2:
        return {}
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


def best_worst_scores(answers: list[tuple[str, Any]], compared: dict[str, list[str]]) -> dict[str, float]:
    """Best-worst counting: (times best - times worst) / times shown, per option, from -1 to 1."""
    best: Counter[str] = Counter()
    worst: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    for item, value in answers:
        for option in compared.get(item, []):
            shown[option] += 1
        best[value["best"]] += 1
        worst[value["worst"]] += 1
    return {option: round((best[option] - worst[option]) / count, 4)
            for option, count in sorted(shown.items(), key=lambda kv: -(best[kv[0]] - worst[kv[0]]) / kv[1])}
