"""What an aggregation run decided, counted once for every page that shows it: the project's steps, the
aggregation page and its span form read these rows, so their numbers agree and add up to the run's items."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from django.db.models import Count

from aggregation import maths
from aggregation.models import AggregationRun
from core.words import counted


@dataclass(frozen=True)
class OutcomeCount:
    key: str
    label: str  # what the outcome means under the rules or method the run used
    count: int


def outcome_counts(run: AggregationRun) -> list[OutcomeCount]:
    """Every outcome the run's rules (or method) can give, in order, with how many items got it. Counted from
    the stored outcomes, one per item of the batch, so the counts add up to the batch's items."""
    counts = Counter(dict(run.outcomes.values_list("outcome").annotate(n=Count("pk")).order_by()))
    if run.method == "paper":
        rules = maths.Rules(**run.rules)
        need = rules.votes_required

        def share(agreement: float) -> str:
            return f"all {need}" if agreement >= 1 else f"{math.ceil(agreement * need)} of {need}"

        labels = [(maths.POSITIVE, f"positive ({share(rules.positive_agreement)} yes)"),
                  (maths.NEGATIVE_100, f"negative ({share(rules.negative_agreement)} no)"),
                  (maths.NEGATIVE_80, f"negative ({share(rules.partial_negative_agreement)} no)"),
                  (maths.DISCARDED, "discarded (split votes)"),
                  (maths.PENDING, f"pending (fewer than {need} votes)")]
    else:
        labels = [(maths.POSITIVE, f"positive ({run.method})"), (maths.NEGATIVE, f"negative ({run.method})"),
                  (maths.PENDING, "pending (no vote)")]
    known = {key for key, _ in labels}
    # An outcome the rules above do not name (a run of an older version) is still counted, never dropped.
    labels += [(key, key) for key in sorted(counts) if key not in known]
    return [OutcomeCount(key, label, counts.get(key, 0)) for key, label in labels]


def outcome_summary(run: AggregationRun) -> str:
    """One line: "2 positive, 1 negative, 3 pending of 6 items" (negatives of both kinds together)."""
    counts = outcome_counts(run)
    by_kind: Counter[str] = Counter()
    for found in counts:
        by_kind["negative" if found.key.startswith("negative") else found.key] += found.count
    total = sum(found.count for found in counts)
    shown = [f"{count} {kind}" for kind, count in by_kind.items() if count or kind in ("positive", "negative")]
    return f"{', '.join(shown)} of {counted(total, 'item')}"


def positive_meaning(run: AggregationRun) -> str:
    """What made an item positive in this run, for sentences like "N sentences ... were called counterfactual"."""
    if run.method == "paper":
        rules = maths.Rules(**run.rules)
        if rules.positive_agreement >= 1:
            return f"all {rules.votes_required} of their annotators called counterfactual"
        return (f"at least {math.ceil(rules.positive_agreement * rules.votes_required)} of "
                f"{rules.votes_required} annotators called counterfactual")
    return f"{run.method} aggregation of their votes called counterfactual"
