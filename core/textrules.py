"""Quality rules for free-text answers, as data: the same rules are checked live on the page (facts.js
reads them from the page) and again on the server, and every refusal names its rule.

Words are runs of letters, digits, underscores and apostrophes, compared lower-cased (the page uses the
same pattern). The bag-of-words overlap of a statement with its source is the Cheap Facts paper's:
the statement's words that also occur in the source, divided by the statement's words.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

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
    """What a statement must be. Defaults are the Cheap Facts paper's drop rules (an empty or one-word
    answer is invalid; a copy of the text is trivial) plus its instruction to write about the entity."""

    min_words: int = 2
    max_overlap: float = 0.9  # above this share of words found in the source, a statement is a copy
    banned: tuple[str, ...] = ()  # words a statement may not use ("not", "never" for counter-facts)
    mention: bool = True  # must mention the highlighted entity
    max_chars: int = 400

    def __post_init__(self) -> None:
        if self.min_words < 1 or not 0 < self.max_overlap <= 1 or self.max_chars < 10:
            raise InputError("min_words is 1 or more, max_overlap a share in (0, 1], max_chars 10 or more",
                             field="rules")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["banned"] = list(self.banned)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TextRules:
        known = {"min_words", "max_overlap", "banned", "mention", "max_chars"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                             field="rules")
        return cls(**{**data, "banned": tuple(word.lower() for word in data.get("banned", ()))})


FACT_RULES = TextRules()
COUNTERFACT_RULES = TextRules(banned=("not", "never"))


@dataclass(frozen=True)
class Refusal:
    rule: str  # empty, words, length, copy, banned, mention
    message: str


def check(statement: str, *, source: str, entity: str, rules: TextRules) -> list[Refusal]:
    """Every rule the statement breaks, in a fixed order; [] when it passes."""
    text = statement.strip()
    if not text:
        return [Refusal("empty", "is empty")]
    found = words(text)
    refusals = []
    if len(text) > rules.max_chars:
        refusals.append(Refusal("length", f"is {len(text)} characters long; keep it under {rules.max_chars}"))
    if len(found) < rules.min_words:
        refusals.append(Refusal("words", f"has {len(found)} word{'s' if len(found) != 1 else ''}; write a statement "
                                         f"of at least {rules.min_words} words"))
    shared = overlap(text, source)
    if shared > rules.max_overlap:
        refusals.append(Refusal("copy", f"{shared:.0%} of its words are in the paragraph (at most "
                                        f"{rules.max_overlap:.0%}); write it in your own words, do not copy"))
    used = sorted(set(found) & set(rules.banned))
    if used:
        refusals.append(Refusal("banned", f"uses {', '.join(repr(word) for word in used)}; state it without "
                                          f"{' or '.join(rules.banned)}"))
    if rules.mention and not mentions(text, entity):
        refusals.append(Refusal("mention", f"does not mention {entity!r}; write about the highlighted words"))
    return refusals
