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
- The aggregator: a word gets the label more than half of the sentence's annotators gave it; the
  antecedent and the consequent are each the longest run of words so labelled, snapped to whole words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from aggregation.maths import _percentiles, alpha
from core.spans import Spans, words

KINDS = ("A", "C")
LABELS = ("A", "C", "O")


def word_labels(text: str, spans: Spans) -> list[str]:
    """A, C or O for every word of `text` (a word is in a span when any of its characters is)."""
    labels = []
    for word in words(text):
        if spans.antecedent_start <= word.end and word.start <= spans.antecedent_end:
            labels.append("A")
        elif spans.consequent_start != -1 and spans.consequent_start <= word.end and \
                word.start <= spans.consequent_end:
            labels.append("C")
        else:
            labels.append("O")
    return labels


@dataclass(frozen=True)
class SpanAgreement:
    sentences: int  # sentences with two or more annotators
    pairs: int
    f1: dict[str, float]  # "A", "C" and "all"
    alpha: float
    interval: tuple[float, float]


def _f1(tp: int, fp_fn: int) -> float:
    return 2 * tp / (2 * tp + fp_fn) if tp or fp_fn else float("nan")


def span_agreement(annotated: Mapping[str, Sequence[Spans]], texts: Mapping[str, str], *, samples: int = 1000,
                   seed: int = 0, confidence: float = 0.95) -> SpanAgreement:
    """Token F1 and token alpha over the sentences of `annotated` ({sentence id: each annotator's spans})
    that two or more annotators marked; `texts` gives each sentence's text."""
    tp = dict.fromkeys(KINDS, 0)
    differ = dict.fromkeys(KINDS, 0)
    pairs = 0
    rows_by_sentence: list[np.ndarray] = []
    for sentence, spans in annotated.items():
        if len(spans) < 2:
            continue
        labelled = [word_labels(texts[sentence], each) for each in spans]
        for i in range(len(labelled)):
            for j in range(i + 1, len(labelled)):
                pairs += 1
                for mine, theirs in zip(labelled[i], labelled[j], strict=True):
                    for kind in KINDS:
                        if mine == kind and theirs == kind:
                            tp[kind] += 1
                        elif mine == kind or theirs == kind:
                            differ[kind] += 1
        counts = np.zeros((len(labelled[0]), len(LABELS)))
        for labels in labelled:
            for position, label in enumerate(labels):
                counts[position, LABELS.index(label)] += 1
        rows_by_sentence.append(counts)
    f1 = {kind: _f1(tp[kind], differ[kind]) for kind in KINDS}
    f1["all"] = _f1(sum(tp.values()), sum(differ.values()))
    if not rows_by_sentence:
        return SpanAgreement(0, 0, f1, float("nan"), (float("nan"), float("nan")))
    value = alpha(np.vstack(rows_by_sentence))
    interval = _sentence_bootstrap(rows_by_sentence, samples, seed, confidence)
    return SpanAgreement(len(rows_by_sentence), pairs, f1, value, interval)


def _sentence_bootstrap(rows: list[np.ndarray], samples: int, seed: int, confidence: float) -> tuple[float, float]:
    if len(rows) < 2 or samples < 1:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    estimates = np.array([alpha(np.vstack([rows[n] for n in rng.integers(0, len(rows), len(rows))]))
                          for _ in range(samples)])
    return _percentiles(estimates, confidence)


def aggregate_spans(text: str, spans: Sequence[Spans]) -> Spans | None:
    """The majority's spans: words labelled A (or C) by more than half of the annotators, the longest run of
    each kind, as character offsets of whole words; None when no word has a majority antecedent."""
    if not spans:
        return None
    found = words(text)
    labelled = [word_labels(text, each) for each in spans]
    majority = []
    for position in range(len(found)):
        votes = [labels[position] for labels in labelled]
        winner = next((kind for kind in KINDS if votes.count(kind) * 2 > len(votes)), "O")
        majority.append(winner)
    runs = {kind: _longest_run(majority, kind) for kind in KINDS}
    if runs["A"] is None:
        return None
    a_first, a_last = runs["A"]
    consequent = runs["C"]
    return Spans(found[a_first].start, found[a_last].end,
                 found[consequent[0]].start if consequent else -1, found[consequent[1]].end if consequent else -1)


def _longest_run(labels: list[str], kind: str) -> tuple[int, int] | None:
    best, start = None, None
    for position, label in enumerate([*labels, "O"]):  # a sentinel ends the last run
        if label == kind and start is None:
            start = position
        elif label != kind and start is not None:
            if best is None or position - start > best[1] - best[0] + 1:
                best = (start, position - 1)
            start = None
    return best
