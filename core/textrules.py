"""Quality rules for free-text answers, as data: the same rules are checked live on the page (design.js
reads them from the page) and again on the server, and every refusal names its rule.

Words are runs of letters, digits, underscores and apostrophes, compared lower-cased (the page uses the
same pattern). The bag-of-words overlap of a statement with its source is the Cheap Facts paper's:
the statement's words that also occur in the source, divided by the statement's words.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from core.errors import InputError

_WORD = re.compile(r"[\w']+")


def words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def overlap(statement: str, source: str) -> float:
    """Bag-of-words overlap: the share of the statement's words found in the source (0 for no words)."""
    found = words(statement)
    if not found:
        return 0.0
    known = set(words(source))
    return sum(word in known for word in found) / len(found)


def mentions(statement: str, entity: str) -> bool:
    """Whether the entity's words appear in the statement, in order and next to each other."""
    needle, hay = words(entity), words(statement)
    return bool(needle) and any(hay[start:start + len(needle)] == needle for start in range(len(hay) - len(needle) + 1))


def position(statement: str, entity: str) -> str | None:
    """Where the entity sits in the statement: "head" (it starts the statement, after at most a leading
    "the"), "tail" (it ends it) or "middle"; None when the statement does not mention it."""
    needle, hay = words(entity), words(statement)
    starts = [start for start in range(len(hay) - len(needle) + 1) if hay[start:start + len(needle)] == needle]
    if not needle or not starts:
        return None
    start = starts[0]
    if start == 0 or (start == 1 and hay[0] == "the"):
        return "head"
    return "tail" if start + len(needle) == len(hay) else "middle"


@dataclass(frozen=True)
class TextRules:
    """What a written answer must be: a design's text scheme sets these as options, and an item may tighten
    them for itself (its rules field: the Cheap Facts counter-facts may not say "not" or "never")."""

    min_words: int = 0
    max_words: int | None = None
    max_chars: int = 2000
    max_overlap: float | None = None  # above this share of words found in the source, the text is a copy
    differ: bool = False  # may not be the source's words again
    banned: tuple[str, ...] = ()  # words the text may not use
    mention: bool = False  # must mention the highlighted entity

    ITEM_RULES: ClassVar[tuple[str, ...]] = ("min_words", "max_words", "max_overlap", "banned")

    def __post_init__(self) -> None:
        if (self.min_words < 0 or (self.max_words is not None and self.max_words < max(1, self.min_words))
                or self.max_chars < 1 or not (self.max_overlap is None or 0 < self.max_overlap <= 1)):
            raise InputError("min_words is 0 or more, max_words at least 1 and min_words, max_chars 1 or more, "
                             "max_overlap a share in (0, 1]", field="rules")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["banned"] = list(self.banned)
        return data

    def tightened(self, own: Any) -> TextRules:
        """These rules with an item's own (a JSON object of ITEM_RULES) laid over them."""
        if own in (None, ""):
            return self
        if not isinstance(own, dict):
            raise InputError(f"is {type(own).__name__}; an item's rules are an object of "
                             f"{', '.join(self.ITEM_RULES)}", field="rules")
        unknown = sorted(set(own) - set(self.ITEM_RULES))
        if unknown:
            raise InputError(f"unknown rule(s) {', '.join(unknown)}; an item may set "
                             f"{', '.join(self.ITEM_RULES)}", field="rules")
        banned = own.get("banned", self.banned)
        if not isinstance(banned, list | tuple) or not all(isinstance(word, str) for word in banned):
            raise InputError("banned is a list of words", field="rules")
        try:
            return replace(self, **{**own, "banned": tuple(word.lower() for word in banned)})
        except TypeError as error:
            raise InputError(f"a rule has a value of the wrong kind ({error})", field="rules") from None


@dataclass(frozen=True)
class Refusal:
    rule: str  # empty, length, words, copy, banned, mention
    message: str


def check(statement: str, *, source: str = "", entity: str = "", rules: TextRules,
          source_name: str = "text") -> list[Refusal]:
    """Every rule the statement breaks, in a fixed order; [] when it passes. `source_name` is what the
    source is called in a message (the text, the paragraph)."""
    text = statement.strip()
    if not text:
        return [Refusal("empty", "is empty")]
    found = words(text)
    refusals = []
    if len(text) > rules.max_chars:
        refusals.append(Refusal("length", f"is {len(text):,} characters long; keep it under {rules.max_chars:,}"))
    if len(found) < rules.min_words:
        refusals.append(Refusal("words", f"has {len(found)} word{'s' if len(found) != 1 else ''}; write at least "
                                         f"{rules.min_words}"))
    if rules.max_words is not None and len(found) > rules.max_words:
        refusals.append(Refusal("words", f"has {len(found)} words; write at most {rules.max_words}"))
    if rules.differ and found and found == words(source):
        refusals.append(Refusal("copy", f"is the same as the {source_name}; change it"))
    elif rules.max_overlap is not None and (shared := overlap(text, source)) > rules.max_overlap:
        refusals.append(Refusal("copy", f"{shared:.0%} of its words are in the {source_name} (at most "
                                        f"{rules.max_overlap:.0%}); write it in your own words, do not copy"))
    used = sorted(set(found) & set(rules.banned))
    if used:
        refusals.append(Refusal("banned", f"uses {', '.join(map(_quoted, used))}; write it without "
                                          f"{' or '.join(map(_quoted, rules.banned))}"))
    if rules.mention and not mentions(text, entity):
        refusals.append(Refusal("mention", f"does not mention {_quoted(entity)}; write about the highlighted words"))
    return refusals


def _quoted(word: str) -> str:
    # Plain single quotes, as the page's check writes them (repr would switch quotes for "don't").
    return f"'{word}'"
