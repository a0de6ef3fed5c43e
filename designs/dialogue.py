"""A dialogue's or an agent trace's turns as a person reads them: who says each turn and what (Potato's dialogue
display), a field's value as lines. Django-free and model-free: item reading (designs.items), the task page and the
scheme types (a turn rating) read it."""

from __future__ import annotations

from typing import Any

SPEAKERS = ("speaker", "role", "name", "agent", "author")  # who says a turn of a dialogue or a trace
SAYINGS = ("text", "content", "utterance", "message", "action", "observation")  # what the turn says


def as_lines(value: Any) -> str:
    """A field's value as a person reads it: a list one entry a line, a turn of a dialogue or an agent trace
    ({"speaker": ..., "text": ...}) as "speaker: text", a mapping as "key: value" lines."""
    if isinstance(value, list):
        return "\n".join(as_line(entry) for entry in value)
    if isinstance(value, dict):
        return "\n".join(f"{key}: {as_line(entry)}" for key, entry in value.items())
    return str(value)


def turns(value: Any) -> list[dict[str, Any]] | None:
    """A dialogue's turns as Potato's dialogue display draws them, or None when the value is not one (a list of
    {"speaker": ..., "text": ...} turns, any of SPEAKERS and SAYINGS): each turn's speaker, what it says, and the
    speaker's place among the dialogue's speakers (its colour)."""
    if not isinstance(value, list) or not value or not all(isinstance(entry, dict) for entry in value):
        return None
    found: list[dict[str, Any]] = []
    speakers: dict[str, int] = {}
    for entry in value:
        who = next((str(entry[key]) for key in SPEAKERS if entry.get(key) not in (None, "")), "")
        said = next((entry[key] for key in SAYINGS if entry.get(key) not in (None, "")), None)
        if said is None:
            return None
        found.append({"speaker": who, "text": as_line(said), "party": speakers.setdefault(who, len(speakers)) % 6})
    return found


def as_line(entry: Any) -> str:
    if isinstance(entry, dict):
        who = next((str(entry[key]) for key in SPEAKERS if entry.get(key) not in (None, "")), "")
        said = next((entry[key] for key in SAYINGS if entry.get(key) not in (None, "")), None)
        if said is not None:
            return f"{who}: {as_line(said)}" if who else as_line(said)
        return "; ".join(f"{key}: {as_line(value)}" for key, value in entry.items())
    if isinstance(entry, list):
        return ", ".join(map(as_line, entry))
    return str(entry)
