"""Span agreement and the span aggregator on small cases computed by hand."""

import math

import krippendorff
import numpy as np
import pytest

from aggregation.span_maths import span_agreement
from core.spans import Spans, majority_spans, offsets, word_labels

TEXT = "If it rained we would stay"  # words 0..5: If it rained we would stay


def spans(antecedent, consequent=None):
    return offsets(TEXT, antecedent, consequent)


def test_words_are_labelled_by_the_span_they_are_in():
    assert word_labels(TEXT, spans((0, 2), (3, 5))) == ["A", "A", "A", "C", "C", "C"]
    assert word_labels(TEXT, spans((1, 2))) == ["O", "A", "A", "O", "O", "O"]
    # A span that starts inside a word takes the whole word (the page snaps to words).
    assert word_labels(TEXT, Spans(4, 11)) == ["O", "A", "A", "O", "O", "O"]


def test_token_f1_and_alpha_by_hand():
    # One annotator: A = If it rained, C = we would stay; the other: A = it rained, C = we would stay.
    # A: 2 words shared, 1 only one labelled -> F1 = 2·2 / (2·2 + 1) = 0.8; C: 3 shared -> 1.0;
    # both: 5 shared, 1 apart -> 10/11.
    # Alpha: 6 words, 12 values (A 5, O 1, C 6); only "If" differs (A/O): D_o = 2/12,
    # D_e = 2·(5·1 + 5·6 + 1·6) / (12·11) = 82/132 -> alpha = 1 - (2/12)/(82/132) = 60/82.
    found = span_agreement({"s1": [spans((0, 2), (3, 5)), spans((1, 2), (3, 5))]}, {"s1": TEXT}, samples=0)
    assert (found.sentences, found.pairs) == (1, 1)
    assert found.f1["A"] == pytest.approx(0.8)
    assert found.f1["C"] == pytest.approx(1.0)
    assert found.f1["all"] == pytest.approx(10 / 11)
    assert found.alpha == pytest.approx(60 / 82)
    data = np.array([[0, 0, 0, 1, 1, 1], [2, 0, 0, 1, 1, 1]], dtype=float)
    assert found.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_pairs_are_summed_over_sentences_and_single_annotations_left_out():
    annotated = {"s1": [spans((0, 2), (3, 5)), spans((1, 2), (3, 5)), spans((1, 2))],
                 "s2": [spans((0, 1))]}
    found = span_agreement(annotated, {"s1": TEXT, "s2": TEXT}, samples=50)
    # Pairs (1,2), (1,3), (2,3). A: tp 2+2+2, apart 1+1+0 -> 12/14. C: tp 3, apart 0+3+3 -> 6/12.
    assert (found.sentences, found.pairs) == (1, 3)
    assert found.f1["A"] == pytest.approx(12 / 14)
    assert found.f1["C"] == pytest.approx(6 / 12)
    assert math.isnan(found.interval[0])  # one sentence: nothing to resample


def test_the_interval_resamples_sentences():
    annotated = {f"s{n}": [spans((0, 2), (3, 5)), spans((1, 2), (3, 5) if n % 2 else (4, 5))] for n in range(8)}
    found = span_agreement(annotated, {key: TEXT for key in annotated}, samples=300, seed=2)
    low, high = found.interval
    assert low <= found.alpha <= high and low < high


def test_the_aggregator_takes_the_majority_word_by_word():
    # A: words 1-2 by all three ("If" by one); "we": C, C, A -> C; "would stay": C by all three.
    three = [spans((0, 2), (3, 5)), spans((1, 2), (3, 5)), spans((1, 3), (4, 5))]
    merged = majority_spans(TEXT, three)
    assert TEXT[merged.antecedent_start:merged.antecedent_end + 1] == "it rained"
    assert TEXT[merged.consequent_start:merged.consequent_end + 1] == "we would stay"
    # Two annotators who disagree on a word leave it out (no majority); no consequent majority -> -1/-1.
    merged = majority_spans(TEXT, [spans((0, 2)), spans((1, 2), (3, 5))])
    assert TEXT[merged.antecedent_start:merged.antecedent_end + 1] == "it rained"
    assert (merged.consequent_start, merged.consequent_end) == (-1, -1)
    assert majority_spans(TEXT, [spans((0, 0)), spans((5, 5))]) is None
    assert majority_spans(TEXT, []) is None
