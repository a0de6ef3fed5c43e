"""A model against the crowd on one design batch: per scheme whose answer is one label, the model's answers against
the crowd's aggregated labels (accuracy and Cohen's kappa, each with a bootstrap interval, and the confusion
table), the crowd's alpha with and without the model as one more annotator, both against the known answers, and
what a label cost each in money and time."""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

import numpy as np
from django.db.models import Count, Sum

from aggregation.maths import bootstrap_interval
from designs.answers import known_answer
from designs.export import batch_report, record_id
from designs.model_runs import SOURCE
from designs.models import ModelRun, OutsideAnswer, batch_design
from designs.schemes import SCHEME_TYPES
from designs.suggestions import pull
from hits.models import Batch, Item, Payment
from hits.providers.base import money

RESAMPLES = 1000  # bootstrap resamples of the items compared


def compare(batch: Batch, annotator: str | None = None, *, seed: int = 0) -> dict[str, Any]:
    """The comparison of one model (by default the one that answered last) with the crowd. Raises CrowdError, saying
    what to run, when no such model answered the batch."""
    name = OutsideAnswer.model_named(batch, annotator or "")
    design, _ = batch_design(batch.pk)
    crowd = batch_report(batch, keep_items=True, outside=False)
    both = batch_report(batch, outside=(SOURCE, name))
    stored = list(OutsideAnswer.objects.filter(batch=batch, source=SOURCE, annotator=name).values_list(
        record_id("item__payload"), "answers", "meta"))
    given = {record: answers for record, answers, _ in stored}
    metas = [meta or {} for _, _, meta in stored]
    known = dict(Item.objects.filter(batch=batch, gold_answer__isnull=False).values_list(record_id(), "gold_answer"))
    rng = np.random.default_rng(seed)
    schemes = []
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.answers or not kind.one_label(scheme) or scheme.name not in crowd.results:
            continue
        labels = crowd.results[scheme.name].items
        rule = design.aggregation.get(scheme.name)
        if rule is not None and rule.method == "threshold":
            # The crowd's label is the outcome's row's label (SemEval's positive is "1"); `otherwise` and pending
            # name none, so those items are not compared.
            named = {row.outcome: row.label for row in rule.rules}
            labels = {item: named.get(outcome) for item, outcome in labels.items()}
        pairs = [(str(labels[item]), str(answers[scheme.name])) for item, answers in given.items()
                 if scheme.name in answers and labels.get(item) is not None]
        gold = [(str(known_answer(answer, scheme.name)), str(given[item][scheme.name]))
                for item, answer in known.items()
                if item in given and scheme.name in given[item] and known_answer(answer, scheme.name) is not None]
        schemes.append({
            "scheme": scheme.name, "compared": len(pairs),
            "accuracy": _interval(pairs, _accuracy, rng), "kappa": _interval(pairs, _kappa, rng),
            "confusion": _confusion(pairs),
            "alpha_crowd": crowd.results[scheme.name].alpha,
            "alpha_with_model": both.results[scheme.name].alpha if scheme.name in both.results else None,
            "gold": {"items": len(gold), "accuracy": _accuracy(gold) if gold else None},
            "confidence": _mean([meta["confidence"][scheme.name] for meta in metas
                                 if scheme.name in (meta.get("confidence") or {})]),
            "position": {"compared": sum(scheme.name in (meta.get("position") or {}).get("compared", [])
                                         for meta in metas),
                         "flipped": sum(scheme.name in (meta.get("position") or {}).get("flipped", [])
                                        for meta in metas)}})
    run = ModelRun.objects.filter(batch=batch, annotator=name).aggregate(
        runs=Count("pk"), cost=Sum("cost"), seconds=Sum("seconds"), answered=Sum("answered"),
        tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    refused = sum(len(found) for found in ModelRun.objects.filter(batch=batch, annotator=name).values_list(
        "refused", flat=True))
    # To the cent: SQLite sums decimals as floats (57.0000000000001).
    paid = money(Payment.objects.filter(batch=batch).exclude(state=Payment.State.FAILED).aggregate(
        total=Sum("amount"))["total"] or 0)
    answered = run["answered"] or 0
    return {"batch": batch.pk, "model": name, "items_answered": len(given), "refused": refused,
            "schemes": schemes,
            # A model never asked here (a Label Studio prediction's) has no run, and no cost to say.
            "model_cost": {"asked": bool(run["runs"]), "total": f"{run['cost'] or 0:.6f}",
                           "tokens_in": run["tokens_in"] or 0,
                           "tokens_out": run["tokens_out"] or 0,
                           "per_item": str(round((run["cost"] or Decimal(0)) / answered, 6)) if answered else None,
                           "seconds_per_item": round((run["seconds"] or 0) / answered, 3) if answered else None},
            "crowd_cost": {"total": str(paid), "per_item": str(round(paid / crowd.items, 4)) if crowd.items and paid
                           else None},
            "suggestions": pull(batch, seed=seed)}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _accuracy(pairs: list[tuple[str, str]]) -> float:
    return sum(crowd == model for crowd, model in pairs) / len(pairs)


def _kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two raters' labels; None when chance agreement is certain (one label throughout)."""
    count = len(pairs)
    observed = _accuracy(pairs)
    first, second = Counter(crowd for crowd, _ in pairs), Counter(model for _, model in pairs)
    expected = sum(first[label] * second[label] for label in first) / (count * count)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def _interval(pairs: list[tuple[str, str]], measure: Any, rng: np.random.Generator) -> dict[str, Any]:
    """The measure over the items, and its 95% percentile bootstrap interval over resampled items."""
    if not pairs:
        return {"value": None, "low": None, "high": None}
    found = [measure([pairs[index] for index in rng.integers(0, len(pairs), len(pairs))]) for _ in range(RESAMPLES)]
    return bootstrap_interval(measure(pairs), [value for value in found if value is not None])


def _confusion(pairs: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """{crowd's label: {model's label: items}}."""
    table: dict[str, dict[str, int]] = defaultdict(dict)
    for crowd, model in pairs:
        table[crowd][model] = table[crowd].get(model, 0) + 1
    return {crowd: dict(sorted(row.items())) for crowd, row in sorted(table.items())}
