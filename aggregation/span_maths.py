"""Agreement between span annotators, and the spans a majority of them drew (no Django).

Spans are compared on the sentence's words (`core.spans.words`, the units the span page snaps to): each
annotator's spans label every word A (antecedent), C (consequent) or O (neither).

- Token F1: for each pair of annotators of a sentence, the words both labelled the same span kind are true
  positives, and those only one of them labelled are a false positive for one and a false negative for the
  other (F1 is symmetric, so who is the reference does not matter); counts are summed over every pair of
  every sentence (micro average), per kind and over both kinds.
- Token alpha: Krippendorff's alpha, nominal, with each word of each sentence as a unit valued A, C or O by
  every annotator of the sentence. This is the documented token-level stand-in for unitized alpha: it
  counts agreement on every word, so it rewards agreeing where a span is not, as unitized alpha does, and
  it stays defined on the short sentences where unitized alpha is unstable. The bootstrap resamples whole
  sentences (their words are not independent).
- The aggregator is `core.spans.majority_spans` (the span review starts from it): a word gets the label
  more than half of the sentence's annotators gave it; the antecedent and the consequent are each the
  longest run of words so labelled, snapped to whole words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from aggregation.maths import _percentiles, alpha
from core.spans import SPAN_KINDS, Spans, f1_scores, pair_counts, word_labels

LABELS = ("A", "C", "O")


@dataclass(frozen=True)
class SpanAgreement:
    sentences: int  # sentences with two or more annotators
    pairs: int
    f1: dict[str, float]  # "A", "C" and "all"
    alpha: float
    interval: tuple[float, float]


def span_agreement(annotated: Mapping[Any, Sequence[Spans]], texts: Mapping[Any, str], *, samples: int = 1000,
                   seed: int = 0, confidence: float = 0.95) -> SpanAgreement:
    """Token F1 and token alpha over the sentences of `annotated` ({sentence id: each annotator's spans})
    that two or more annotators marked; `texts` gives each sentence's text."""
    agree = dict.fromkeys(SPAN_KINDS, 0)
    differ = dict.fromkeys(SPAN_KINDS, 0)
    pairs = 0
    rows_by_sentence: list[np.ndarray] = []
    for sentence, spans in annotated.items():
        if len(spans) < 2:
            continue
        labelled = [word_labels(texts[sentence], each) for each in spans]
        found = pair_counts(labelled)
        pairs += found[2]
        for kind in SPAN_KINDS:
            agree[kind] += found[0][kind]
            differ[kind] += found[1][kind]
        counts = np.zeros((len(labelled[0]), len(LABELS)))
        for labels in labelled:
            for position, label in enumerate(labels):
                counts[position, LABELS.index(label)] += 1
        rows_by_sentence.append(counts)
    scores = f1_scores(agree, differ)
    if not rows_by_sentence:
        return SpanAgreement(0, 0, scores, float("nan"), (float("nan"), float("nan")))
    value = alpha(np.vstack(rows_by_sentence))
    interval = _sentence_bootstrap(rows_by_sentence, samples, seed, confidence)
    return SpanAgreement(len(rows_by_sentence), pairs, scores, value, interval)


def _sentence_bootstrap(rows: list[np.ndarray], samples: int, seed: int, confidence: float) -> tuple[float, float]:
    if len(rows) < 2 or samples < 1:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    estimates = np.array([alpha(np.vstack([rows[n] for n in rng.integers(0, len(rows), len(rows))]))
                          for _ in range(samples)])
    return _percentiles(estimates, confidence)
