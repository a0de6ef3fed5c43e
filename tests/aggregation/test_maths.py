"""The aggregation maths on hand-made vote tables."""

import math

import krippendorff
import numpy as np
import pytest

from aggregation import maths
from aggregation.maths import Rules


def table(**rows):
    """votes from {item: "11100"}: one worker per position (w0, w1, ...)."""
    return [(item, f"w{n}", int(label)) for item, labels in rows.items() for n, label in enumerate(labels)]


def outcomes(votes, rules=maths.PAPER_RULES, items=()):
    return {o.item: (o.outcome, o.yes, o.no) for o in maths.item_outcomes(votes, rules, items)}


def test_it_applies_the_papers_rules():
    votes = table(a="11111", b="00000", c="10000", d="11000", e="11100", f="1111")
    assert outcomes(votes) == {
        "a": ("positive", 5, 0), "b": ("negative-100", 0, 5), "c": ("negative-80", 1, 4),
        "d": ("discarded", 2, 3), "e": ("discarded", 3, 2), "f": ("pending", 4, 0)}


def test_it_lists_items_without_votes_as_pending():
    assert outcomes(table(a="11111"), items=["a", "z"])["z"] == ("pending", 0, 0)


def test_it_counts_a_repeated_vote_once():
    votes = [*table(a="11110"), ("a", "w4", 1), ("a", "w0", 0)]
    assert outcomes(votes)["a"][0] == "discarded"  # 4 yes of 5 is not unanimous; the repeat did not count


def test_it_keeps_a_seeded_share_of_partial_negatives():
    votes = table(**{f"i{n}": "10000" for n in range(40)})
    rules = Rules(keep_partial_negatives=0.25, seed=3)
    first = outcomes(votes, rules)
    kept = sorted(item for item, (outcome, *_) in first.items() if outcome == "negative-80")
    assert len(kept) == 10
    assert sum(o.partial for o in maths.item_outcomes(votes, rules)) == 40  # sampled out, still counted as found
    assert kept == sorted(i for i, (o, *_) in outcomes(votes, rules).items() if o == "negative-80")
    other = sorted(i for i, (o, *_) in outcomes(votes, Rules(keep_partial_negatives=0.25, seed=4)).items()
                   if o == "negative-80")
    assert other != kept
    assert "a seeded sample of 25% (seed 3)" in rules.describe()
    assert "all" in Rules().describe()


def test_it_computes_alpha_as_by_hand():
    # Two coders, three items: (1,1), (0,0), (1,0). Do = 2, n0 = n1 = 3, De = (36 - 18) / 5 = 3.6.
    _, counts = maths.value_counts(table(a="11", b="00", c="10"))
    assert maths.alpha(counts) == pytest.approx(1 - 2 / 3.6)
    # Five coders: 5/0, 0/5, 1/4. Do = (25 - 17) / 4 = 2; n0 = 9, n1 = 6; De = (225 - 81 - 36) / 14.
    _, counts = maths.value_counts(table(a="11111", b="00000", c="10000"))
    assert maths.alpha(counts) == pytest.approx(1 - 2 / (108 / 14))
    _, counts = maths.value_counts(table(a="11111", b="00000"))
    assert maths.alpha(counts) == pytest.approx(1.0)


def test_its_fast_alpha_equals_the_krippendorff_package():
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 6, (300, 2)).astype(float)
    disagreement, pairable = maths._alpha_parts(counts)
    assert maths._alpha_from_parts(disagreement, pairable) == pytest.approx(maths.alpha(counts))


def test_it_brackets_alpha_with_a_reproducible_interval():
    votes = table(**{f"i{n}": ("11111" if n % 3 else "10000") for n in range(60)})
    result = maths.agreement(votes, samples=300, seed=1)
    assert result.low <= result.alpha <= result.high
    assert maths.agreement(votes, samples=300, seed=1) == result
    assert math.isnan(maths.agreement(table(a="1"), samples=10).alpha)


def test_it_ranks_workers_and_finds_the_spammer():
    # w0..w3 agree with each other and the gold; w4 always says 1.
    votes = table(**{f"i{n}": ("0000" if n % 2 else "1111") + "1" for n in range(20)})
    gold = {f"i{n}": 0 if n % 2 else 1 for n in range(20)}
    ranking = maths.worker_quality(votes, gold)
    assert ranking[-1].worker == "w4"
    assert ranking[-1].consensus_accuracy == pytest.approx(0.5)
    assert ranking[-1].gold_accuracy == pytest.approx(0.5)
    assert ranking[-1].confusion == {"1/1": 10, "1/0": 10}
    assert ranking[0].consensus_accuracy == 1.0


def test_it_measures_aggregated_labels_against_known_answers():
    result = maths.item_outcomes(table(a="11111", b="00000", c="11111", d="11000"))
    assert maths.label_accuracy(result, {"a": 1, "b": 0, "c": 0, "d": 1}) == {"items": 3, "correct": 2,
                                                                               "accuracy": 2 / 3}


def test_more_votes_than_required_are_judged_by_share():
    # Six votes (an extra assignment): positive only at 6/6; 5 no of 6 (83%) is a partial negative; 4 of 6 is not.
    assert outcomes(table(a="111111", b="100000", c="110000", d="000000")) == {
        "a": ("positive", 6, 0), "b": ("negative-80", 1, 5), "c": ("discarded", 2, 4), "d": ("negative-100", 0, 6)}
    assert "more votes than required are judged by share" in Rules().describe()


def test_alpha_per_unit_equals_the_krippendorff_package_unit_by_unit():
    rng = np.random.default_rng(11)
    votes = [(item, worker, int(rng.random() < 0.3 + 0.4 * (item % 2)), item // 25)
             for item in range(250) for worker in rng.choice(12, 5, replace=False)]
    found = maths.VoteTable(votes).agreement_by_unit()
    for unit in range(10):
        members = [vote[:3] for vote in votes if vote[3] == unit]
        _, counts = maths.value_counts(members)
        expected = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
        assert found[unit].alpha == pytest.approx(expected)
        assert found[unit].items == 25


def test_the_multinomial_bootstrap_matches_resampling_items_one_by_one():
    rng = np.random.default_rng(2)
    counts = np.array([[5, 0]] * 700 + [[0, 5]] * 150 + [[1, 4]] * 80 + [[2, 3]] * 70, dtype=float)
    disagreement, pairable = maths._alpha_parts(counts)
    by_index = [maths._alpha_from_parts(disagreement, pairable,
                                        np.bincount(rng.integers(0, 1000, 1000), minlength=1000).astype(float))
                for _ in range(2000)]
    low, high = maths.alpha_interval(counts, samples=2000, seed=2)
    assert low == pytest.approx(np.percentile(by_index, 2.5), abs=0.01)
    assert high == pytest.approx(np.percentile(by_index, 97.5), abs=0.01)
    assert low < maths.alpha(counts) < high


def test_worker_quality_reads_any_labels_and_leaves_out_ties():
    # Three labels; on "t" the others of w0 split 1-1 (a tie, not counted).
    votes = [("s", "w0", 2), ("s", "w1", 2), ("s", "w2", 2), ("t", "w0", 0), ("t", "w1", 1), ("t", "w2", 2)]
    quality = {q.worker: q for q in maths.worker_quality(votes, {"s": 2})}
    assert (quality["w0"].votes, quality["w0"].consensus_votes, quality["w0"].consensus_agreed) == (2, 1, 1)
    assert quality["w0"].confusion == {"2/2": 1}
    assert (quality["w1"].gold_votes, quality["w1"].gold_correct) == (1, 1)


def test_the_early_stop_decision_table_under_the_papers_rules():
    # settled[yes][no]: the outcome no further vote can change, "" while the remaining votes still matter.
    table = [[maths.settled(yes, no) or "" for no in range(6 - yes)] for yes in range(6)]
    assert table == [
        ["", "", "", "", "", "negative-100"],
        ["", "", "", "", "negative-80"],
        ["", "discarded", "discarded", "discarded"],  # two yes and a no: neither positive nor negative
        ["", "discarded", "discarded"],
        ["", "discarded"],
        ["positive"],  # a positive needs all five
    ]
    # When only positives matter (the span batch), one "no" settles it: it can never be 5/5 yes.
    positives = {name: "rest" for name in ("negative-100", "negative-80", "discarded")}
    assert maths.settled(0, 1, classes=positives) == "rest"
    assert maths.settled(4, 0, classes=positives) is None
    # Settled means every completion agrees: checked against all of them for every state.
    for yes in range(6):
        for no in range(6 - yes):
            found = maths.settled(yes, no)
            completions = {maths.rule_outcome(yes + k, no + 5 - yes - no - k) for k in range(6 - yes - no)}
            assert (found is not None) == (len(completions) == 1)


def test_a_models_vote_settles_an_item_as_one_more_voter_under_the_same_rule():
    # Four people said yes: with the model's yes as the fifth voter the item is a positive; its no makes it not one.
    assert maths.settled(4, 0) is None
    assert maths.settled_with_model(4, 0, True) == "positive"
    assert maths.settled_with_model(4, 0, False) == "discarded"
    # One person and the model cannot settle what three more votes could still change.
    assert maths.settled_with_model(1, 0, True) is None
    # Where only positives matter, a model's no after a person's yes settles the item as not positive.
    positives = {name: "rest" for name in ("negative-100", "negative-80", "discarded")}
    assert maths.settled_with_model(1, 0, False, classes=positives) == "rest"
