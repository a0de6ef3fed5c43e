"""Words of a sentence and the character offsets of spans over them.

The span page shows the stored sentence as words and sends back word numbers;
the offsets are computed here from the stored text, so they are exact whatever
the browser counts in (JavaScript strings count UTF-16 units: an emoji is two).
Offsets follow the released convention: character indices, end inclusive,
-1/-1 for an absent consequent.
"""

import re
from dataclasses import dataclass

from datasets.formats import check_spans
from datasets.scorer import ScoreError, Spans

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


class SpanError(ValueError):
    """Word numbers or offsets that do not fit the sentence; the message says which."""


def words(text):
    found, previous_end = [], 0
    for index, match in enumerate(_WORD.finditer(text)):
        found.append(Word(index, match.start(), match.end() - 1, match.group(), text[previous_end:match.start()]))
        previous_end = match.end()
    return found


def parse_range(value, count, what):
    """'first:last' word numbers as sent by the page -> (first, last); '' -> None."""
    value = (value or "").strip()
    if not value:
        return None
    first, sep, last = value.partition(":")
    if not sep or not first.strip().isdigit() or not last.strip().isdigit():
        raise SpanError(f"{what} {value!r} is not 'first:last' word numbers")
    first, last = int(first), int(last)
    if first > last:
        raise SpanError(f"{what} starts at word {first} after it ends at word {last}")
    if last >= count:
        raise SpanError(f"{what} ends at word {last}, but the sentence has words 0..{count - 1}")
    return first, last


def read_fields(text, antecedent, consequent, no_consequent):
    """The page's fields for one sentence ('first:last' word numbers, and the 'no consequent'
    tick) -> (antecedent, consequent or None) word ranges, every rule checked."""
    count = len(words(text))
    antecedent = parse_range(antecedent, count, "the antecedent")
    consequent = parse_range(consequent, count, "the consequent")
    if antecedent is None:
        raise SpanError("the antecedent is not marked")
    if consequent is None and not no_consequent:
        raise SpanError("mark the consequent, or say the sentence has none")
    if consequent is not None and no_consequent:
        raise SpanError("a consequent is marked and 'no consequent' is ticked; keep one")
    return antecedent, consequent


def offsets(text, antecedent, consequent):
    """Word ranges -> Spans of character offsets; overlapping or malformed spans are refused."""
    found = words(text)
    a_start, a_end = found[antecedent[0]].start, found[antecedent[1]].end
    c_start, c_end = (found[consequent[0]].start, found[consequent[1]].end) if consequent else (-1, -1)
    spans = Spans(a_start, a_end, c_start, c_end)
    try:
        check_spans(text, spans, where="spans", allow_overlap=False)
    except ScoreError as error:
        raise SpanError(str(error).removeprefix("spans: ")) from None
    return spans


def word_range(text, start, end):
    """Character offsets (end inclusive) -> the word numbers they cover, or None for -1/-1."""
    if start == -1:
        return None
    covered = [word.index for word in words(text) if word.start <= end and start <= word.end]
    return (covered[0], covered[-1]) if covered else None
