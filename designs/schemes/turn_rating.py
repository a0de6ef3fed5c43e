"""turn_rating: a point 1..size given to each turn of a dialogue said by the speakers rated (Potato's dialogue display
option per_turn_ratings), any turn left unrated: "<prefix>-<turn number from 0>", as Potato numbers them."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from designs.dialogue import turns
from designs.schemes.base import SchemeBase, SchemeType, majority, point, scheme_type


class TurnRating(SchemeBase):
    """Each turn of a dialogue said by one of the speakers rated, given a point on a scale (any may be left)."""

    annotation_type: Literal["turn_rating"]
    turns_field: str = Field(min_length=1, description="the item field holding the dialogue: a list of turns, "
                                                       "each with its speaker and what it says")
    speakers: list[str] = Field(min_length=1, description="whose turns are rated")
    size: int = Field(5, ge=2, le=10, description="how many points")
    min_label: str = Field("", description="the lowest point's name")
    max_label: str = Field("", description="the highest point's name")


def from_per_turn_ratings(field: str, speakers: list[str], name: str, scale: dict[str, Any]) -> dict[str, Any]:
    """One rating of Potato's per_turn_ratings on the dialogue in `field` ({size, labels: [lowest, highest]}) as a
    turn_rating scheme of ours (designs.potato reads the display option)."""
    ends = [str(end) for end in scale["labels"]][:2] if isinstance(scale.get("labels"), list) else []
    return {"annotation_type": "turn_rating", "name": name, "description": name.replace("_", " ").title(),
            "turns_field": field, "speakers": speakers, "size": scale.get("size", 5),
            **({"min_label": ends[0]} if ends else {}), **({"max_label": ends[1]} if len(ends) > 1 else {})}


def rated(scheme: TurnRating, record: Any) -> list[tuple[int, str]]:
    """(the turn's place from 0 among all the dialogue's turns, "speaker: text") of each turn rated on `record`."""
    found = turns(record.fields.get(scheme.turns_field)) if record is not None else None
    return [(place, f"{turn['speaker']}: {turn['text']}") for place, turn in enumerate(found or [])
            if turn["speaker"] in scheme.speakers]


@scheme_type
class TurnRatingType(SchemeType):
    name = "turn_rating"
    settings = TurnRating
    # Each turn's most given point among those who rated it (a mean or median would count a turn left as 0).
    aggregators = ("majority", "none")
    potato_keys = ()  # made by the importer from a dialogue display's per_turn_ratings (designs.potato)
    level = "ordinal"
    script = "designs/retract.js"
    style = "designs/turn_rating.css"

    def item_problem(self, scheme, record):
        if turns(record.fields.get(scheme.turns_field)) is None:
            return (f"item {record.id!r} has no dialogue under {scheme.turns_field!r} (a list of turns, each with "
                    f"its speaker and text) whose turns are rated")
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"turns": [{"place": place, "said": said} for place, said in rated(scheme, record)],
                "points": list(range(1, scheme.size + 1))}

    def read(self, scheme, fields, record):
        given = {}
        for place, said in rated(scheme, record):
            text = fields.get(str(place))
            if text:
                given[str(place)] = point(text, scheme.size, f"turn {place + 1} ({said[:40]!r})")
        return given or None

    def answer_schema(self, scheme):
        # Each key a rated turn's place from 0 (read checks it against the item's dialogue).
        return {"type": "object", "propertyNames": {"pattern": "^[0-9]+$"}, "minProperties": 1,
                "additionalProperties": {"type": "integer", "minimum": 1, "maximum": scheme.size}}

    def form_fields(self, scheme, value, record=None):
        return {place: str(point) for place, point in value.items()} if isinstance(value, dict) else {}

    def units(self, scheme, value, text=""):
        return dict(value)  # agreement per turn

    def combine(self, scheme, values):
        places = sorted({place for value in values for place in value}, key=int)
        return {place: majority([value[place] for value in values if place in value]) for place in places}

    def potato_answer(self, scheme, value, record):
        # Potato keeps {turn: point} as JSON in a hidden input of its own, stored under "_data".
        ordered = {place: value[place] for place in sorted(value, key=int)}
        return {"labels": {"_data": json.dumps(ordered, separators=(",", ":"))}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get("_data")
        return self.form_fields(scheme, json.loads(found)) if found else {}

    def told(self, scheme, record=None):
        if record is None:
            return ""
        ends = ", ".join(part for part in (f"1 {scheme.min_label}".strip() if scheme.min_label else "",
                                           f"{scheme.size} {scheme.max_label}" if scheme.max_label else "") if part)
        return (f"Rate each of these turns 1 to {scheme.size}{f' ({ends})' if ends else ''}, as {{turn: point}}, any "
                f"you can: " + "; ".join(f"{place}: {said}" for place, said in rated(scheme, record)) + ".")

    def card_labels(self, scheme):
        return f"1 to {scheme.size} for each turn of {', '.join(scheme.speakers)}"
