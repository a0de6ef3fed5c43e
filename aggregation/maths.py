"""Vote aggregation, agreement and worker quality. No Django here: plain
data in, plain data out.

Votes are (item, worker, label) tuples; items and workers are any hashable
ids, labels small integers (0/1 for Subtask 1). A worker's second vote on an
item is ignored: each worker counts once per item.
"""

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import krippendorff
import numpy as np

POSITIVE, NEGATIVE_100, NEGATIVE_80, DISCARDED, PENDING = (
    "positive", "negative-100", "negative-80", "discarded", "pending")


@dataclass(frozen=True)
class Rules:
    """The paper's rules as defaults: positive only when all five say yes,
    negative when all five say no, and "some" of the 4-of-5 negatives."""

    votes_required: int = 5
    positive_agreement: float = 1.0
    negative_agreement: float = 1.0
    partial_negative_agreement: float = 0.8
    keep_partial_negatives: float = 1.0  # share of 4/5 negatives kept (1.0 = all), drawn with `seed`
    seed: int = 0

    def describe(self):
        keep = ("all" if self.keep_partial_negatives >= 1 else
                f"a seeded sample of {self.keep_partial_negatives:.0%} (seed {self.seed})")
        return (f"{self.votes_required} votes required; positive at {self.positive_agreement:.0%} yes; negative at "
                f"{self.negative_agreement:.0%} no; {self.partial_negative_agreement:.0%}-no negatives: {keep}")


PAPER_RULES = Rules()


@dataclass(frozen=True)
class Outcome:
    item: object
    yes: int
    no: int
    outcome: str
    partial: bool = False  # reached the partial-negative agreement (kept as negative-80, or sampled out)


def unique_votes(votes):
    """Drop repeated (item, worker) votes, keeping the first."""
    seen = set()
    kept = []
    for item, worker, label in votes:
        if (item, worker) not in seen:
            seen.add((item, worker))
            kept.append((item, worker, label))
    return kept


def label_distribution(votes):
    """{item: {label: votes}}, each worker counted once per item (their first vote).

    Plain dicts, not Counters: this runs over every vote several times per aggregation, and creating a
    Counter per item (its __init__ is Python code) was most of its time at 100,000 items.
    """
    distribution: dict = {}
    seen = set()
    for item, worker, label in votes:
        if (item, worker) in seen:
            continue
        seen.add((item, worker))
        counts = distribution.get(item)
        if counts is None:
            distribution[item] = {label: 1}
        else:
            counts[label] = counts.get(label, 0) + 1
    return distribution


def item_outcomes(votes, rules=PAPER_RULES, items=()):
    """Apply the agreement rules to every item; returns [Outcome] sorted by item.

    Items with fewer than `votes_required` votes (including `items` that have
    no vote at all) are pending and never labeled. Among items that reach the
    partial-negative agreement, a share `keep_partial_negatives` is kept
    (seeded), the rest discarded.
    """
    outcomes, partial = [], []
    distribution = label_distribution(votes)
    for item in items:
        if item not in distribution:
            distribution[item] = {}
    for item, counts in sorted(distribution.items(), key=lambda pair: str(pair[0])):
        yes, no = counts.get(1, 0), counts.get(0, 0)
        total = yes + no
        if total < rules.votes_required:
            outcome = PENDING
        elif yes >= rules.positive_agreement * total:
            outcome = POSITIVE
        elif no >= rules.negative_agreement * total:
            outcome = NEGATIVE_100
        elif no >= rules.partial_negative_agreement * total:
            outcome = NEGATIVE_80
            partial.append(len(outcomes))
        else:
            outcome = DISCARDED
        outcomes.append(Outcome(item, yes, no, outcome, partial=outcome == NEGATIVE_80))
    if rules.keep_partial_negatives < 1 and partial:
        keep = set(random.Random(rules.seed).sample(partial, round(len(partial) * rules.keep_partial_negatives)))
        for index in partial:
            if index not in keep:
                old = outcomes[index]
                outcomes[index] = Outcome(old.item, old.yes, old.no, DISCARDED, partial=True)
    return outcomes


# --- agreement -------------------------------------------------------------------

def value_counts(votes, labels=(0, 1)):
    """Items × labels matrix of vote counts, the form Krippendorff's alpha needs."""
    distribution = label_distribution(votes)
    items = sorted(distribution, key=str)
    matrix = np.array([[counts.get(label, 0) for label in labels] for counts in map(distribution.__getitem__, items)],
                      dtype=float)
    return items, matrix.reshape(len(items), len(labels))


def alpha(counts):
    """Krippendorff's alpha, nominal, from a value-counts matrix (the krippendorff package)."""
    if _pairable(counts).sum() < 2 or len(np.nonzero(counts.sum(axis=0))[0]) < 2:
        return float("nan")
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


def _pairable(counts):
    return counts.sum(axis=1) >= 2


def _alpha_parts(counts):
    """Per-item observed disagreement and label totals: alpha = 1 - Do / De.

    For nominal data, Do = Σ_u (m_u² - Σ_c n_uc²) / (m_u - 1) over items with
    m_u ≥ 2 votes, and De = (n² - Σ_c n_c²) / (n - 1) with n_c the label
    totals over those items. Written this way a bootstrap resample is a
    weighted sum, so a thousand of them cost little.
    """
    counts = counts[_pairable(counts)]
    m = counts.sum(axis=1)
    disagreement = (m ** 2 - (counts ** 2).sum(axis=1)) / (m - 1)
    return disagreement, counts


def _alpha_from_parts(disagreement, counts, weights=None):
    if weights is None:
        observed, totals = disagreement.sum(), counts.sum(axis=0)
    else:
        observed, totals = weights @ disagreement, weights @ counts
    n = totals.sum()
    expected = (n ** 2 - (totals ** 2).sum()) / (n - 1)
    return 1 - observed / expected if expected else float("nan")


def alpha_interval(counts, *, samples=1000, confidence=0.95, seed=0):
    """Bootstrap confidence interval of alpha, resampling items."""
    disagreement, pairable = _alpha_parts(counts)
    units = len(disagreement)
    if units < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    estimates = np.empty(samples)
    for sample in range(samples):
        weights = np.bincount(rng.integers(0, units, units), minlength=units).astype(float)
        estimates[sample] = _alpha_from_parts(disagreement, pairable, weights)
    estimates = estimates[~np.isnan(estimates)]
    if not len(estimates):
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Agreement:
    items: int
    alpha: float
    low: float
    high: float


def agreement(votes, *, samples=1000, seed=0):
    _, counts = value_counts(votes)
    low, high = alpha_interval(counts, samples=samples, seed=seed)
    return Agreement(len(counts), alpha(counts), low, high)


def agreement_by(votes, group_of, *, samples=1000, seed=0):
    """Alpha with its interval per group; `group_of` maps an item to its group (domain, HIT, batch)."""
    groups = defaultdict(list)
    for vote in votes:
        groups[group_of[vote[0]]].append(vote)
    return {group: agreement(members, samples=samples, seed=seed) for group, members in sorted(groups.items())}


# --- workers ---------------------------------------------------------------------

@dataclass
class WorkerQuality:
    worker: object
    votes: int = 0
    consensus_votes: int = 0  # votes on items where the other workers had a majority
    consensus_agreed: int = 0
    gold_votes: int = 0
    gold_correct: int = 0
    # worker label × majority label: {"1/1": n, "1/0": n, "0/1": n, "0/0": n}
    confusion: Counter = field(default_factory=Counter)

    @property
    def consensus_accuracy(self):
        return self.consensus_agreed / self.consensus_votes if self.consensus_votes else None

    @property
    def gold_accuracy(self):
        return self.gold_correct / self.gold_votes if self.gold_votes else None


def worker_quality(votes, gold=None):
    """Per-worker accuracy against the consensus of the *other* workers on each
    item (their strict majority; ties are not counted) and against gold
    answers; sorted best first, so spammers end up at the bottom."""
    gold = gold or {}
    votes = unique_votes(votes)
    # Each item's (label, votes) pairs once, as tuples: the loop below runs once per vote (500,000 at
    # 100,000 items) and takes the voter's own vote out by arithmetic instead of copying a Counter.
    distribution = {item: tuple(counts.items()) for item, counts in label_distribution(votes).items()}
    stats = {}
    for item, worker, label in votes:
        stat = stats.get(worker)
        if stat is None:
            stat = stats[worker] = WorkerQuality(worker)
        stat.votes += 1
        # The other workers' strict majority: the label with the most of their votes, if no other label ties it.
        majority, best, second = None, 0, 0
        for value, count in distribution[item]:
            if value == label:
                count -= 1
            if count > best:
                majority, best, second = value, count, best
            elif count > second:
                second = count
        if best > second:
            stat.consensus_votes += 1
            stat.consensus_agreed += label == majority
            stat.confusion[f"{label}/{majority}"] += 1
        if item in gold:
            stat.gold_votes += 1
            stat.gold_correct += label == gold[item]
    return sorted(stats.values(), key=lambda s: (-(s.consensus_accuracy or 0), -(s.gold_accuracy or 0), str(s.worker)))


def label_accuracy(outcomes, gold):
    """How often aggregated labels equal known answers: {"items", "correct", "accuracy"} over labeled items."""
    labeled = [(o, gold[o.item]) for o in outcomes if o.item in gold and o.outcome != PENDING
               and o.outcome != DISCARDED]
    correct = sum((o.outcome == POSITIVE) == (answer == 1) for o, answer in labeled)
    return {"items": len(labeled), "correct": correct, "accuracy": correct / len(labeled) if labeled else None}
