"""Vote aggregation, agreement and worker quality. No Django here: plain
data in, plain data out.

Votes are (item, worker, label) tuples; items and workers are any hashable
ids, labels small integers (0/1 for Subtask 1). A worker's second vote on an
item is ignored: each worker counts once per item.
"""

import math
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

import krippendorff
import numpy as np

POSITIVE, NEGATIVE_100, NEGATIVE_80, DISCARDED, PENDING = (
    "positive", "negative-100", "negative-80", "discarded", "pending")
NEGATIVE = "negative"  # a truth-inference method's label 0 (the rules' negatives say how many agreed)


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
    # For a batch that stopped buying votes early (adaptive redundancy): "outcomes", an item with fewer votes
    # than required takes the outcome every completion of its votes would give (`settled`); "positives", an
    # item that can no longer be positive is discarded (which negative it would have been was not bought).
    # "" (the rules as written): it is pending.
    settle_early: str = ""

    def describe(self):
        keep = ("all" if self.keep_partial_negatives >= 1 else
                f"a seeded sample of {self.keep_partial_negatives:.0%} (seed {self.seed})")
        return (f"{self.votes_required} votes required; positive at {self.positive_agreement:.0%} yes; negative at "
                f"{self.negative_agreement:.0%} no; {self.partial_negative_agreement:.0%}-no negatives: {keep}; "
                f"more votes than required are judged by share (e.g. 6 votes: positive at 6 yes)"
                + {"": "", "outcomes": "; an item whose missing votes could not change its outcome takes that "
                                       "outcome (adaptive)",
                   "positives": "; an item that could no longer be positive is discarded (adaptive, positives "
                                "only)"}[self.settle_early])


PAPER_RULES = Rules()


class RuleError(ValueError):
    """A design's aggregation rule that the vote rules cannot run; the message says what to change."""


@dataclass(frozen=True)
class VoteRule:
    """A design file's threshold rule as the vote rules run it: the labels counted as a yes (1) and a no (0)."""

    rules: Rules
    yes: str
    no: str


VOTE_OUTCOMES = (POSITIVE, NEGATIVE_100, NEGATIVE_80)


def votes_rule(rule: Any) -> bool:
    """Whether `rule` is one the vote rules run (see vote_rule)."""
    try:
        vote_rule(rule)
    except RuleError:
        return False
    return True


def vote_rule(rule: Any, **choices: Any) -> VoteRule:
    """The Rules a design's threshold rule states (designs.model.Aggregation: rows of outcome, label, min_votes,
    min_share; min_answers; otherwise), with the run's `choices` (seed, keep_partial_negatives, settle_early,
    votes_required) over them. designs/semeval-subtask1.yaml's rule is the paper's: positive at 5 of 5 "1",
    negative-100 at 5 of 5 "0", negative-80 at 4 of 5, otherwise discarded. Raises RuleError naming what does not
    fit: the stored runs, their outcomes and the dataset versions made from them speak of these outcomes."""
    if rule is None or getattr(rule, "method", None) != "threshold":
        raise RuleError("its label scheme has no threshold rule in the design's `aggregation` (the agreement rules "
                        "are one: see designs/semeval-subtask1.yaml)")
    rows = {row.outcome: row for row in rule.rules}
    if (len(rows) != len(rule.rules) or set(rows) - set(VOTE_OUTCOMES) or POSITIVE not in rows
            or NEGATIVE_100 not in rows or rule.otherwise != DISCARDED):
        raise RuleError(f"its threshold rule's outcomes are {', '.join(rows) or 'none'} (otherwise {rule.otherwise}); "
                        f"the stored vote aggregation runs positive and negative-100, optionally negative-80, each "
                        f"once, otherwise discarded; `manage.py design report` aggregates any other rule")
    positive, negative, partial = rows[POSITIVE], rows[NEGATIVE_100], rows.get(NEGATIVE_80)
    if positive.label is None or negative.label is None or positive.label == negative.label or (
            partial is not None and partial.label != negative.label):
        raise RuleError("its threshold rule's positive row and its negative rows must each name a label, the "
                        "negatives the same one and the positive another")
    need = rule.min_answers or max(row.min_votes or 0 for row in rule.rules)
    if not need:
        raise RuleError("its threshold rule says neither min_answers nor min_votes: give min_answers, the votes "
                        "an item needs")

    def share(row: Any) -> float:
        found = row.min_share if row.min_share is not None else row.min_votes / need
        # Votes beyond `need` are judged by share (6 votes: positive at 6 yes), so a row's count must follow
        # from its share of `need`.
        if row.min_votes is not None and row.min_votes > math.ceil(found * need - 1e-9):
            raise RuleError(f"its threshold rule's {row.outcome} row asks {row.min_votes} votes but a share of "
                            f"{found:.0%} of {need}: give one of min_votes and min_share")
        return found

    rules = Rules(votes_required=need, positive_agreement=share(positive), negative_agreement=share(negative),
                  partial_negative_agreement=share(partial) if partial is not None else share(negative))
    return VoteRule(replace(rules, **{key: value for key, value in choices.items() if value is not None}),
                    positive.label, negative.label)
# What a dataset that only needs its positives tells apart (for `settled`): positive, or anything else.
NOT_POSITIVE = "not-positive"
POSITIVE_OR_NOT = {NEGATIVE_100: NOT_POSITIVE, NEGATIVE_80: NOT_POSITIVE, DISCARDED: NOT_POSITIVE}


@dataclass(frozen=True, slots=True)  # one an item: slots keep 100,000 of them small
class Outcome:
    item: object
    yes: int
    no: int
    outcome: str
    partial: bool = False  # reached the partial-negative agreement (kept as negative-80, or sampled out)
    label: int | None = None  # a truth-inference method's label (the rules' is read from `outcome`)
    confidence: float | None = None


def rule_outcome(yes, no, rules=PAPER_RULES):
    """The outcome of one item with `yes` and `no` votes under the rules (before any partial-negative
    sampling): what `item_outcomes` gives it."""
    total = yes + no
    if total < rules.votes_required:
        return PENDING
    if yes >= rules.positive_agreement * total:
        return POSITIVE
    if no >= rules.negative_agreement * total:
        return NEGATIVE_100
    if no >= rules.partial_negative_agreement * total:
        return NEGATIVE_80
    return DISCARDED


def settled(yes, no, rules=PAPER_RULES, classes=None):
    """The outcome an item will have whatever its remaining votes say, or None while they can still change it.

    Every way the missing `votes_required - yes - no` votes could fall is tried; when all give the same
    outcome, more votes are money spent on nothing. Under the paper's rules one "no" rules out a positive
    and two "yes" rule out a negative, so an item with both is settled as discarded; a positive needs all
    five votes. `classes` maps outcomes to what the dataset needs told apart (e.g. positive against the
    rest, for a span batch of the positives): then only those must be settled. (Adaptive redundancy:
    `bench/adaptive_bench.py`.)"""
    def named(outcome):
        return classes.get(outcome, outcome) if classes else outcome

    missing = rules.votes_required - yes - no
    if missing <= 0:
        return named(rule_outcome(yes, no, rules))
    found = {named(rule_outcome(yes + extra, no + missing - extra, rules)) for extra in range(missing + 1)}
    return found.pop() if len(found) == 1 else None


def settled_with_model(yes, no, model_yes, rules=PAPER_RULES, classes=None):
    """The outcome an item will have, counting a model's vote (`model_yes`: True for yes) as one more voter among
    the rule's `votes_required`, whatever the remaining people's votes say; None while they can still change it.
    Used to stop early: an item the model and the first people do not settle goes on to the full crowd, whose
    outcome is then the people's alone (`bench/model_adaptive_bench.py`)."""
    return settled(yes + bool(model_yes), no + (not model_yes), rules, classes)


def item_outcomes(votes, rules=PAPER_RULES, items=()):
    """Apply the agreement rules to every item; returns [Outcome] sorted by item.

    Items with fewer than `votes_required` votes (including `items` that have
    no vote at all) are pending and never labeled. Among items that reach the
    partial-negative agreement, a share `keep_partial_negatives` is kept
    (seeded), the rest discarded.
    """
    return VoteTable(votes, items=items).outcomes(rules)


# --- agreement -------------------------------------------------------------------

def value_counts(votes, labels=(0, 1)):
    """Items × labels matrix of vote counts, the form Krippendorff's alpha needs."""
    table = VoteTable(votes)
    return list(table.items), table.counts_for(labels)


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
    """Bootstrap confidence interval of alpha, resampling items.

    Items with the same row of counts are interchangeable, and a resample of n items drawn with
    replacement holds each kind of row a Multinomial(n, shares of the kinds) number of times. So a
    resample is drawn as one multinomial over the few kinds of rows (a handful for five binary votes),
    not as n indices: the same distribution, and a thousand resamples of 100,000 items in a millisecond.
    """
    disagreement, pairable = _alpha_parts(counts)
    units = len(disagreement)
    if units < 2 or samples < 1:
        return float("nan"), float("nan")
    kinds, index, size = np.unique(pairable, axis=0, return_index=True, return_counts=True)
    weights = np.random.default_rng(seed).multinomial(units, size / units, size=samples).astype(float)
    observed, totals = weights @ disagreement[index], weights @ kinds
    n = totals.sum(axis=1)
    expected = (n ** 2 - (totals ** 2).sum(axis=1)) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _percentiles(np.where(expected > 0, 1 - observed / expected, np.nan), confidence)


def ordinal_alpha(counts):
    """Krippendorff's alpha for ordinal ratings from an items × values matrix of counts, the columns in
    the scale's order (1, 2, 3 ...). Only items rated by two or more count."""
    parts = _ordinal_parts(counts)
    return float("nan") if parts is None else _ordinal_from_parts(parts.sum(axis=0))


def ordinal_alpha_interval(counts, *, samples=1000, confidence=0.95, seed=0):
    """Bootstrap confidence interval of ordinal alpha, resampling the rated items."""
    parts = _ordinal_parts(counts)
    if parts is None or len(parts) < 2 or samples < 1:
        return float("nan"), float("nan")
    weights = np.random.default_rng(seed).multinomial(len(parts), np.full(len(parts), 1 / len(parts)),
                                                      size=samples).astype(float)
    coincidences = np.tensordot(weights, parts, axes=1)
    return _percentiles(np.array([_ordinal_from_parts(each) for each in coincidences]), confidence)


def _ordinal_parts(counts):
    """Each pairable item's coincidence matrix: o_ck = n_uc (n_uk - [c = k]) / (m_u - 1)."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[_pairable(counts)]
    if not len(counts):
        return None
    m = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - np.einsum("uc,ck->uck", counts, np.eye(counts.shape[1]))
    return pairs / (m - 1)[:, None, None]


def _ordinal_from_parts(coincidences):
    """alpha = 1 - (n - 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, with the ordinal metric
    δ_ck = Σ_{g=c..k} n_g - (n_c + n_k) / 2 over the value totals n_c."""
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    low, high = np.minimum.outer(np.arange(len(totals)), np.arange(len(totals))), \
        np.maximum.outer(np.arange(len(totals)), np.arange(len(totals)))
    between = cumulative[high + 1] - cumulative[low]
    delta = (between - (totals[:, None] + totals[None, :]) / 2) ** 2
    np.fill_diagonal(delta, 0.0)
    expected = (np.outer(totals, totals) * delta).sum()
    if n < 2 or expected == 0:
        return float("nan")
    return float(1 - (n - 1) * (coincidences * delta).sum() / expected)


def _percentiles(estimates, confidence):
    """The central `confidence` interval of bootstrap estimates (the undefined ones left out)."""
    estimates = estimates[~np.isnan(estimates)]
    if not len(estimates):
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_interval(value, estimates, *, confidence=0.95):
    """{"value", "low", "high"} rounded to 4 places: a measure and the central interval of its bootstrap estimates;
    None where the measure or every estimate is undefined."""
    low, high = _percentiles(np.array(estimates, dtype=float), confidence)
    return {"value": None if value is None else round(value, 4),
            "low": None if value is None or np.isnan(low) else round(low, 4),
            "high": None if value is None or np.isnan(high) else round(high, 4)}


@dataclass(frozen=True)
class Agreement:
    items: int
    alpha: float
    low: float
    high: float


def agreement(votes, *, samples=1000, seed=0):
    return VoteTable(votes).agreement(samples=samples, seed=seed)


def agreement_by(votes, group_of, *, samples=1000, seed=0):
    """Alpha with its interval per group; `group_of` maps an item to its group (domain, HIT, batch)."""
    return VoteTable(votes).agreement_by(group_of, samples=samples, seed=seed)


# --- Fleiss' kappa and majority, for votes with any labels ------------------------------

def fleiss_kappa(counts):
    """Fleiss' kappa from an items × labels matrix of vote counts, every item with 2 or more votes.

    P_i = (Σ_j n_ij² − n_i) / (n_i (n_i − 1)) is the agreement on item i, P̄ their mean, p_j the share of
    all votes given label j and P_e = Σ_j p_j²; kappa = (P̄ − P_e) / (1 − P_e). With the same number of
    votes per item this is Fleiss (1971) exactly; with varying numbers each item weighs the same.
    """
    counts = np.asarray(counts, dtype=float)
    agreement, shares = _fleiss_parts(counts)
    expected = (shares ** 2).sum()
    return float((agreement.mean() - expected) / (1 - expected)) if expected < 1 else float("nan")


def _fleiss_parts(counts):
    n = counts.sum(axis=1)
    if len(counts) == 0 or (n < 2).any():
        raise ValueError("Fleiss' kappa needs 2 or more votes on every item")
    agreement = ((counts ** 2).sum(axis=1) - n) / (n * (n - 1))
    return agreement, counts.sum(axis=0) / n.sum()


def fleiss_interval(counts, *, samples=1000, confidence=0.95, seed=0):
    """Bootstrap interval of Fleiss' kappa resampling items, drawn per kind of row as `alpha_interval` is."""
    counts = np.asarray(counts, dtype=float)
    if len(counts) < 2 or samples < 1:
        return float("nan"), float("nan")
    kinds, size = np.unique(counts, axis=0, return_counts=True)
    agreement, _ = _fleiss_parts(kinds)
    weights = np.random.default_rng(seed).multinomial(len(counts), size / len(counts), size=samples).astype(float)
    mean_agreement = weights @ agreement / weights.sum(axis=1)
    totals = weights @ kinds
    expected = ((totals / totals.sum(axis=1, keepdims=True)) ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _percentiles(np.where(expected < 1, (mean_agreement - expected) / (1 - expected), np.nan), confidence)


@dataclass(frozen=True)
class Majority:
    item: object
    label: object  # None on a tie
    votes: int
    top: int  # votes for the majority label (or for each tied label)
    tied: tuple = ()  # the labels that tie for the most votes


def majority(votes):
    """Each item's most-voted label, [Majority] in item order; a tie names the tied labels and no winner."""
    return VoteTable(votes).majority()


def _majority(table):
    found = []
    for index in sorted(range(len(table.items)), key=lambda n: str(table.items[n])):
        row = table.counts[index]
        top = int(row.max()) if len(row) else 0
        leaders = tuple(table.labels[n] for n in np.nonzero(row == top)[0]) if top else ()
        found.append(Majority(table.items[index], leaders[0] if len(leaders) == 1 else None, int(row.sum()), top,
                              leaders if len(leaders) > 1 else ()))
    return found


# --- workers ---------------------------------------------------------------------

@dataclass
class WorkerQuality:
    worker: Any  # a Worker's pk; a name in simulations
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
    return VoteTable(votes).worker_quality(gold)


def label_accuracy(outcomes, gold):
    """How often aggregated labels equal known answers: {"items", "correct", "accuracy"} over labeled items."""
    labeled = [(o, gold[o.item]) for o in outcomes if o.item in gold and o.outcome != PENDING
               and o.outcome != DISCARDED]
    correct = sum((o.outcome == POSITIVE) == (answer == 1) for o, answer in labeled)
    return {"items": len(labeled), "correct": correct, "accuracy": correct / len(labeled) if labeled else None}


# --- the votes counted once --------------------------------------------------------

class VoteTable:
    """An aggregation's votes as arrays, each worker counted once per item (their first vote), and
    every statistic read from the same counts.

    Votes are (item, worker, label) or (item, worker, label, unit) tuples, the unit being what a
    worker was given the item in (a HIT), for agreement per unit. `items` adds items that have no vote.
    At 100,000 items × 5 votes, counting per statistic in Python loops was most of an aggregation's
    time; here the counting is done once, by numpy.
    """

    def __init__(self, votes=(), items=(), *, columns=None):
        """`votes` as tuples, or `columns`: (items, workers, labels[, units]) as integer arrays, for a batch's
        votes read without a tuple each (aggregation.services.vote_columns)."""
        if columns is None:
            votes = list(votes)
            columns = list(zip(*votes, strict=True)) if votes else [(), (), (), ()]
        size = len(columns[0])
        if isinstance(columns[0], np.ndarray):
            item_codes, self.items = _codes(np.concatenate([columns[0], np.fromiter(items, dtype=np.int64)]))
        else:
            item_codes, self.items = _codes([*columns[0], *items])
        item_codes = item_codes[:size]
        worker_codes, self.workers = _codes(columns[1])
        label_codes, self.labels = _codes(columns[2], ordered=True)
        # The first vote of each (item, worker) pair, in the order given.
        _, first = np.unique(item_codes * max(len(self.workers), 1) + worker_codes, return_index=True)
        first.sort()
        self.item_codes, self.worker_codes = item_codes[first], worker_codes[first]
        self.label_codes = label_codes[first]
        self.unit_codes, self.units = (None, [])
        if len(columns) > 3:
            unit_codes, self.units = _codes(columns[3])
            self.unit_codes = unit_codes[first]
        self.size = len(first)
        self.counts = np.zeros((len(self.items), len(self.labels)), dtype=np.int64)
        np.add.at(self.counts, (self.item_codes, self.label_codes), 1)

    def column(self, label):
        """Each item's votes for `label` (zeros when no one gave it)."""
        where = [n for n, known in enumerate(self.labels) if known == label]
        return self.counts[:, where[0]] if where else np.zeros(len(self.items), dtype=np.int64)

    def counts_for(self, labels):
        return np.stack([self.column(label) for label in labels], axis=1).astype(float).reshape(len(self.items),
                                                                                                len(labels))

    def outcomes(self, rules=PAPER_RULES):
        """The rules applied to every item, as `item_outcomes` documents; [Outcome] sorted by item."""
        yes, no = self.column(1), self.column(0)
        total = yes + no
        # More votes than required (an extra assignment) are judged by share: 6 votes need 6 yes for a
        # positive, 6 no for a full negative and 5 no (≥ 80%) for a partial one.
        named = np.full(len(self.items), DISCARDED, dtype=object)
        partial_rule = (no >= rules.partial_negative_agreement * total) & (no < rules.negative_agreement * total)
        named[partial_rule] = NEGATIVE_80
        named[no >= rules.negative_agreement * total] = NEGATIVE_100
        named[yes >= rules.positive_agreement * total] = POSITIVE
        named[total < rules.votes_required] = PENDING
        if rules.settle_early:
            classes = POSITIVE_OR_NOT if rules.settle_early == "positives" else None
            for index in np.nonzero(total < rules.votes_required)[0]:
                found = settled(int(yes[index]), int(no[index]), rules, classes)
                named[index] = PENDING if found is None else DISCARDED if found == NOT_POSITIVE else found
        outcomes, partial = [], []
        for index in sorted(range(len(self.items)), key=lambda n: str(self.items[n])):
            outcome = named[index]
            if outcome == NEGATIVE_80:
                partial.append(len(outcomes))
            outcomes.append(Outcome(self.items[index], int(yes[index]), int(no[index]), outcome,
                                    partial=outcome == NEGATIVE_80))
        if rules.keep_partial_negatives < 1 and partial:
            keep = set(random.Random(rules.seed).sample(partial, round(len(partial) * rules.keep_partial_negatives)))
            for index in partial:
                if index not in keep:
                    old = outcomes[index]
                    outcomes[index] = Outcome(old.item, old.yes, old.no, DISCARDED, partial=True)
        return outcomes

    def agreement(self, *, samples=1000, seed=0, rows=None):
        counts = (self.counts if rows is None else self.counts[rows]).astype(float)
        voted = counts[counts.sum(axis=1) > 0]
        low, high = alpha_interval(voted, samples=samples, seed=seed)
        return Agreement(len(voted), alpha(voted), low, high)

    def agreement_by(self, group_of, *, samples=1000, seed=0):
        """Alpha with its interval per group of the items that have votes; items whose group is None
        are left out."""
        groups = defaultdict(list)
        for index in np.unique(self.item_codes):
            group = group_of[self.items[index]]
            if group is not None:
                groups[group].append(index)
        return {group: self.agreement(samples=samples, seed=seed, rows=np.array(rows))
                for group, rows in sorted(groups.items())}

    def agreement_by_unit(self):
        """Alpha (the point value) within each unit: {unit: Agreement}."""
        return {unit: parts.agreement() for unit, parts in self.unit_parts().items()}

    def unit_parts(self):
        """What each unit's alpha is computed from, as sums a batch read in chunks of items adds up (see
        UnitParts): {unit: UnitParts}."""
        if self.unit_codes is None:
            raise ValueError("these votes carry no unit (the fourth value of each vote)")
        if not self.size:
            return {}
        pairs, pair_codes = np.unique(self.unit_codes * len(self.items) + self.item_codes, return_inverse=True)
        counts = np.zeros((len(pairs), len(self.labels)))
        np.add.at(counts, (pair_codes.ravel(), self.label_codes), 1)
        pair_units = pairs // len(self.items)
        m = counts.sum(axis=1)
        pairable = m >= 2
        with np.errstate(divide="ignore", invalid="ignore"):
            disagreement = np.where(pairable, (m ** 2 - (counts ** 2).sum(axis=1)) / (m - 1), 0.0)
        found: dict = {}
        for row, unit_code in enumerate(pair_units.tolist()):
            parts = found.setdefault(self.units[unit_code], UnitParts())
            parts.add(float(disagreement[row]), {label: float(counts[row, n]) for n, label in enumerate(self.labels)},
                      bool(pairable[row]))
        return found

    def majority(self):
        """As `majority` documents, from these counts."""
        return _majority(self)

    def worker_quality(self, gold=None):
        """As `worker_quality` documents: each vote against the strict majority of the item's other votes."""
        if not self.size:
            return []
        gold = gold or {}
        labels = len(self.labels)
        rows = np.arange(self.size)
        others = self.counts[self.item_codes]
        others[rows, self.label_codes] -= 1
        if labels > 1:
            order = np.argsort(-others, axis=1, kind="stable")
            majority, best, second = order[:, 0], others[rows, order[:, 0]], others[rows, order[:, 1]]
        else:
            majority, best, second = np.zeros(self.size, dtype=np.int64), others[:, 0], np.zeros(self.size)
        consensus = best > second
        agreed = consensus & (majority == self.label_codes)
        code_of = {label: n for n, label in enumerate(self.labels)}
        answers = np.full(len(self.items), -1)
        for index, item in enumerate(self.items):
            if item in gold:
                answers[index] = code_of.get(gold[item], -2)  # -2: an answer no one gave, never matched
        answer = answers[self.item_codes]
        workers = len(self.workers)

        def per_worker(weights=None):
            return np.bincount(self.worker_codes, weights=weights, minlength=workers).astype(int)

        votes, consensus_votes, consensus_agreed = per_worker(), per_worker(consensus), per_worker(agreed)
        gold_votes, gold_correct = per_worker(answer != -1), per_worker(answer == self.label_codes)
        confusion = np.bincount((self.worker_codes * labels + self.label_codes) * labels + majority,
                                weights=consensus, minlength=workers * labels * labels).reshape(workers, labels, labels)
        stats = []
        for code, worker in enumerate(self.workers):
            cells = Counter({f"{self.labels[given]}/{self.labels[held]}": int(confusion[code, given, held])
                             for given, held in zip(*np.nonzero(confusion[code]), strict=True)})
            stats.append(WorkerQuality(worker, int(votes[code]), int(consensus_votes[code]),
                                       int(consensus_agreed[code]), int(gold_votes[code]), int(gold_correct[code]),
                                       cells))
        return sorted(stats, key=lambda s: (-(s.consensus_accuracy or 0), -(s.gold_accuracy or 0), str(s.worker)))


@dataclass
class UnitParts:
    """A unit's (a HIT's) alpha as sums over its items: observed disagreement, each label's votes on its pairable
    items, the labels it was given at all, its items and its pairable items."""

    observed: float = 0.0
    totals: Counter = field(default_factory=Counter)
    used: set = field(default_factory=set)
    items: int = 0
    pairable: int = 0

    def add(self, disagreement, counts, pairable):
        self.observed += disagreement
        self.items += 1
        self.pairable += pairable
        for label, count in counts.items():
            if count:
                self.used.add(label)
                if pairable:
                    self.totals[label] += count

    def merge(self, other):
        self.observed += other.observed
        self.totals.update(other.totals)
        self.used |= other.used
        self.items += other.items
        self.pairable += other.pairable

    def agreement(self):
        """The unit's point alpha (NaN when it cannot be told)."""
        n = sum(self.totals.values())
        nan = float("nan")
        expected = (n ** 2 - sum(count ** 2 for count in self.totals.values())) / (n - 1) if n > 1 else 0.0
        enough = self.pairable >= 2 and len(self.used) >= 2 and expected > 0
        return Agreement(self.items, 1 - self.observed / expected if enough else nan, nan, nan)


class RowKinds:
    """Items' vote-count rows (no, yes) counted by kind, so that alpha and its bootstrap interval over a batch of
    any size are computed from a handful of kinds (alpha_interval draws over kinds already)."""

    def __init__(self):
        self.kinds = Counter()

    def add(self, rows):
        self.kinds.update(map(tuple, rows.tolist()))

    def agreement(self, *, samples=1000, seed=0):
        """As VoteTable.agreement gives it for the same rows: the interval drawn exactly as alpha_interval draws
        it (the kinds sorted as numpy sorts unique rows), alpha from the same sums as the krippendorff package
        (equal to it but for the last digits of a float)."""
        voted = sum(count for kind, count in self.kinds.items() if sum(kind) > 0)
        kinds = sorted(kind for kind in self.kinds if sum(kind) >= 2)
        if not kinds:
            return Agreement(voted, float("nan"), float("nan"), float("nan"))
        rows = np.array(kinds, dtype=float)
        size = np.array([self.kinds[kind] for kind in kinds], dtype=float)
        m = rows.sum(axis=1)
        disagreement = (m ** 2 - (rows ** 2).sum(axis=1)) / (m - 1)
        units = int(size.sum())
        used = len({label for kind in self.kinds if sum(kind) > 0 for label, count in enumerate(kind) if count})
        value = float("nan") if units < 2 or used < 2 else _alpha_from_parts(disagreement, rows, size)
        if units < 2 or samples < 1:
            return Agreement(voted, value, float("nan"), float("nan"))
        weights = np.random.default_rng(seed).multinomial(units, size / units, size=samples).astype(float)
        observed, totals = weights @ disagreement, weights @ rows
        n = totals.sum(axis=1)
        expected = (n ** 2 - (totals ** 2).sum(axis=1)) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            low, high = _percentiles(np.where(expected > 0, 1 - observed / expected, np.nan), 0.95)
        return Agreement(voted, value, low, high)


def _codes(values, ordered=False):
    """(code of each value as an array, the distinct values by code), first seen first or sorted."""
    if isinstance(values, np.ndarray):
        # The same codes by numpy, for a batch's columns of integer ids.
        keys, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        if ordered:
            return inverse.astype(np.int64), keys.tolist()
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(keys), dtype=np.int64)
        rank[order] = np.arange(len(keys))
        return rank[inverse], keys[order].tolist()
    distinct = {}
    for value in values:
        if value not in distinct:
            distinct[value] = len(distinct)
    keys = list(distinct)
    if ordered:
        keys = sorted(keys, key=lambda value: (str(type(value)), value))
        distinct = {value: n for n, value in enumerate(keys)}
    return np.fromiter(map(distinct.__getitem__, values), dtype=np.int64, count=len(values)), keys
