"""Spans: antecedent and consequent offsets, their rules, and the words they snap to. No Django here.

Offsets follow the released convention: character indices into the sentence,
end inclusive, -1/-1 for an absent consequent.

The span page shows the stored sentence as words and sends back word numbers;
the offsets are computed here from the stored text, so they are exact whatever
the browser counts in (JavaScript strings count UTF-16 units: an emoji is two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import InputError

# One CJK character is a word (those scripts put no spaces between words); a
# word keeps its inner apostrophes and combining marks; any other symbol
# (punctuation, an emoji) stands alone, so a span may include a quote or not.
_MARKS = "\u0300-\u036f\u200d\ufe0f\U0001f3fb-\U0001f3ff"
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}][{_MARKS}]*|(?:(?![{_CJK}])[\w{_MARKS}])+(?:['’](?:(?![{_CJK}])\w)+)*|[^\w\s][{_MARKS}]*")


@dataclass(frozen=True)
class Word:
    index: int
    start: int  # first character
    end: int  # last character (inclusive)
    text: str
    gap: str  # the whitespace before the word


class SpanError(InputError):
    """Word numbers or offsets that do not fit the sentence; the message says which."""


@dataclass(frozen=True)
class Spans:
    antecedent_start: int
    antecedent_end: int  # inclusive, as released
    consequent_start: int = -1
    consequent_end: int = -1

    def as_tuple(self) -> tuple[int, int, int, int]:
        return self.antecedent_start, self.antecedent_end, self.consequent_start, self.consequent_end


def check_spans(sentence: str, spans: Spans, where: str | None = None, allow_overlap: bool = True) -> None:
    """Refuse offsets a released file could not hold: out of range, reversed, half missing.

    The released training file has a few rows whose antecedent and consequent
    overlap (row 110 has them equal), so reading allows it; new annotations
    are checked with allow_overlap=False.
    """
    a_start, a_end, c_start, c_end = spans.as_tuple()
    length = len(sentence)
    if not 0 <= a_start <= a_end < length:
        raise SpanError(f"antecedent {a_start}..{a_end} is not inside the sentence (0..{length - 1})", file=where)
    if (c_start == -1) != (c_end == -1):
        raise SpanError(f"consequent {c_start}..{c_end}: both ids are -1 or neither is", file=where)
    if c_start != -1:
        if not 0 <= c_start <= c_end < length:
            raise SpanError(f"consequent {c_start}..{c_end} is not inside the sentence (0..{length - 1})",
                            file=where)
        if not allow_overlap and c_start <= a_end and a_start <= c_end:
            raise SpanError(f"antecedent {a_start}..{a_end} and consequent {c_start}..{c_end} overlap", file=where)


def words(text: str) -> list[Word]:
    found, previous_end = [], 0
    for index, match in enumerate(_WORD.finditer(text)):
        found.append(Word(index, match.start(), match.end() - 1, match.group(), text[previous_end:match.start()]))
        previous_end = match.end()
    return found


def parse_range(value: str | None, count: int, what: str) -> tuple[int, int] | None:
    """'first:last' word numbers as sent by the page -> (first, last); '' -> None."""
    value = (value or "").strip()
    if not value:
        return None
    head, sep, tail = value.partition(":")
    if not sep or not head.strip().isdecimal() or not tail.strip().isdecimal():
        raise SpanError(f"{what} {value!r} is not 'first:last' word numbers")
    first, last = int(head), int(tail)
    if first > last:
        raise SpanError(f"{what} starts at word {first} after it ends at word {last}")
    if last >= count:
        raise SpanError(f"{what} ends at word {last}, but the sentence has words 0..{count - 1}")
    return first, last


def read_fields(text: str, antecedent: str | None, consequent: str | None,
                no_consequent: bool) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """The page's fields for one sentence ('first:last' word numbers, and the 'no consequent'
    tick) -> (antecedent, consequent or None) word ranges, every rule checked."""
    count = len(words(text))
    first = parse_range(antecedent, count, "the antecedent")
    second = parse_range(consequent, count, "the consequent")
    if first is None:
        raise SpanError("the antecedent is not marked")
    if second is None and not no_consequent:
        raise SpanError("mark the consequent, or say the sentence has none")
    if second is not None and no_consequent:
        raise SpanError("a consequent is marked and 'no consequent' is ticked; keep one")
    return first, second


def offsets(text: str, antecedent: tuple[int, int], consequent: tuple[int, int] | None) -> Spans:
    """Word ranges -> Spans of character offsets; overlapping or malformed spans are refused."""
    found = words(text)
    a_start, a_end = found[antecedent[0]].start, found[antecedent[1]].end
    c_start, c_end = (found[consequent[0]].start, found[consequent[1]].end) if consequent else (-1, -1)
    spans = Spans(a_start, a_end, c_start, c_end)
    check_spans(text, spans, allow_overlap=False)
    return spans


def word_range(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Character offsets (end inclusive) -> the word numbers they cover, or None for -1/-1."""
    if start == -1:
        return None
    covered = [word.index for word in words(text) if word.start <= end and start <= word.end]
    return (covered[0], covered[-1]) if covered else None


# --- several annotators of one sentence ------------------------------------------------

SPAN_KINDS = ("A", "C")  # antecedent, consequent; "O" is a word in neither


def word_labels(text: str, spans: Spans) -> list[str]:
    """A, C or O for every word of `text` (a word is in a span when any of its characters is)."""
    labels = []
    for word in words(text):
        if spans.antecedent_start != -1 and spans.antecedent_start <= word.end and word.start <= spans.antecedent_end:
            labels.append("A")
        elif spans.consequent_start != -1 and spans.consequent_start <= word.end and \
                word.start <= spans.consequent_end:
            labels.append("C")
        else:
            labels.append("O")
    return labels


def pair_counts(labelled: list[list[str]]) -> tuple[dict[str, int], dict[str, int], int]:
    """For every pair of annotators of one sentence (their `word_labels`): per span kind, the words both
    gave that kind (agreements) and the words only one of them did (disagreements), and the pairs."""
    agree = dict.fromkeys(SPAN_KINDS, 0)
    differ = dict.fromkeys(SPAN_KINDS, 0)
    pairs = 0
    for i in range(len(labelled)):
        for j in range(i + 1, len(labelled)):
            pairs += 1
            for mine, theirs in zip(labelled[i], labelled[j], strict=True):
                for kind in SPAN_KINDS:
                    if mine == kind and theirs == kind:
                        agree[kind] += 1
                    elif mine == kind or theirs == kind:
                        differ[kind] += 1
    return agree, differ, pairs


def f1(agree: int, differ: int) -> float:
    """Token F1 from pair counts (symmetric: who is the reference does not matter); NaN when neither marked."""
    return 2 * agree / (2 * agree + differ) if agree or differ else float("nan")


def f1_scores(agree: dict[str, int], differ: dict[str, int]) -> dict[str, float]:
    """Token F1 per span kind and over both ("all"), from `pair_counts`' agreements and disagreements."""
    scores = {kind: f1(agree[kind], differ[kind]) for kind in SPAN_KINDS}
    scores["all"] = f1(sum(agree.values()), sum(differ.values()))
    return scores


def majority_spans(text: str, answers: list[Spans]) -> Spans | None:
    """The majority's spans: words labelled A (or C) by more than half of the annotators, the longest run of
    each kind, as character offsets of whole words; None when no word has a majority antecedent."""
    if not answers:
        return None
    found = words(text)
    labelled = [word_labels(text, each) for each in answers]
    majority = []
    for position in range(len(found)):
        votes = [labels[position] for labels in labelled]
        majority.append(next((kind for kind in SPAN_KINDS if votes.count(kind) * 2 > len(votes)), "O"))
    runs = {kind: _longest_run(majority, kind) for kind in SPAN_KINDS}
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
