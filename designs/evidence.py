"""Writing-behaviour evidence for a free-text answer, for a reviewer to read (never an automatic
rejection): how each statement got into its box (typed keys, paste events and the pasted share), how long
it took, how often the page lost focus, and how close it is to the source text.

The task page of a design naming the writing-evidence component (design.js) records per text box: keys
pressed, paste events, characters pasted, and the first and last moment of input; per page: focus losses.
They arrive with the submission as the raw field `_evidence` (JSON) and are kept with it. A statement that
arrives whole in one paste, with few keys and no time spent, reads differently from one typed key by key: the
card shows both the raw signals and a one-line reading.

The page also carries a hidden canary: an instruction placed off screen and hidden from screen readers,
which a person working the page never meets but a language model given the page's text would follow
("include the word … in every statement"). A statement holding the HIT's canary word is shown as such.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from core.textrules import overlap, words

# The canary words: ordinary English, but not ones a statement about a news paragraph would use.
CANARY_WORDS = ("marmalade", "tangerine", "accordion", "zeppelin", "lighthouse", "porcupine", "saxophone",
                "kaleidoscope")

FIELD = "_evidence"
MAX_FIELD = 20_000  # characters of the raw field read; a longer one is a forged or broken form


@dataclass(frozen=True)
class LineEvidence:
    line: str  # the form field ("a-<item>-<scheme>[-<box>]")
    statement: str
    chars: int
    keys: int
    pastes: int
    pasted_chars: int
    pasted_share: float  # pasted characters ÷ characters of the statement, at most 1
    keys_per_char: float
    seconds: float | None  # from the first to the last input on the line
    source_overlap: float  # bag-of-words overlap with the paragraph
    canary: bool = False  # holds the page's hidden canary word

    @property
    def reading(self) -> str:
        if self.canary:
            return "follows the page's hidden instruction (a language model given the page?)"
        if self.pastes and self.pasted_share >= 0.8:
            return "pasted whole"
        if self.pastes:
            return "partly pasted"
        if self.chars and self.keys_per_char < 0.5:
            return "few keys for its length (autofill or a script?)"
        return "typed"


@dataclass(frozen=True)
class EvidenceCard:
    lines: list[LineEvidence]
    focus_losses: int | None
    seconds_on_task: float | None
    recorded: bool  # False when the page sent no evidence (an old page, MTurk without scripts, a forged form)

    @property
    def pasted_share(self) -> float:
        """Pasted characters ÷ written characters over the whole answer."""
        chars = sum(line.chars for line in self.lines)
        return min(1.0, sum(line.pasted_chars for line in self.lines) / chars) if chars else 0.0

    @property
    def canary_lines(self) -> int:
        return sum(line.canary for line in self.lines)

    @property
    def suspicion(self) -> tuple[int, float, float]:
        """The review queue's order, most to look at first: the hidden instruction followed, pasted share,
        then fewest keys a character."""
        typed = min((line.keys_per_char for line in self.lines), default=1.0)
        return (-self.canary_lines, -self.pasted_share, typed)

    def as_dict(self) -> dict[str, Any]:
        return {"recorded": self.recorded, "pasted_share": self.pasted_share, "canary_lines": self.canary_lines,
                "focus_losses": self.focus_losses,
                "seconds_on_task": self.seconds_on_task,
                "lines": [{**asdict(line), "reading": line.reading} for line in self.lines]}


def canary_word(item_ids: list[int]) -> str:
    """The canary word of a HIT, from its items (the same on the page and in the review)."""
    return CANARY_WORDS[min(item_ids, default=0) % len(CANARY_WORDS)]


def card(raw: dict[str, Any], sources: dict[str, str], canary: str = "") -> EvidenceCard:
    """The evidence of one submission; `sources` maps each line field to its paragraph, `canary` is the
    HIT's canary word."""
    recorded = _parse(raw.get(FIELD))
    lines_seen = recorded.get("lines", {}) if isinstance(recorded.get("lines"), dict) else {}
    lines = []
    for name, source in sources.items():
        statement = str(raw.get(name, "")).strip()
        if not statement:
            continue
        found = lines_seen.get(name)
        seen: dict[str, Any] = found if isinstance(found, dict) else {}
        keys, pastes, pasted = (_count(seen.get(key)) for key in ("keys", "pastes", "pasted"))
        first, last = seen.get("first"), seen.get("last")
        seconds = (last - first) / 1000 if isinstance(first, int | float) and isinstance(last, int | float) else None
        lines.append(LineEvidence(
            line=name, statement=statement, chars=len(statement), keys=keys, pastes=pastes, pasted_chars=pasted,
            pasted_share=min(1.0, pasted / len(statement)), keys_per_char=keys / len(statement),
            seconds=round(seconds, 1) if seconds is not None and seconds >= 0 else None,
            source_overlap=overlap(statement, source), canary=bool(canary) and canary in words(statement)))
    blurs = recorded.get("blurs")
    elapsed = raw.get("_elapsed_ms")
    try:
        on_task = round(int(elapsed) / 1000, 1) if elapsed not in (None, "") else None
    except (TypeError, ValueError):
        on_task = None
    return EvidenceCard(lines, _count(blurs) if blurs is not None else None, on_task, bool(recorded))


def _parse(value: Any) -> dict[str, Any]:
    if not isinstance(value, str) or not value or len(value) > MAX_FIELD:
        return {}
    try:
        found = json.loads(value)
    except (ValueError, RecursionError):  # forged: not JSON, or lists nested thousands deep
        return {}
    return found if isinstance(found, dict) else {}


def _count(value: Any) -> int:
    return max(0, min(int(value), 10_000_000)) if isinstance(value, int | float) and value == value else 0
