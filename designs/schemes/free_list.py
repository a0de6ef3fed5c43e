"""free_list: a free list (Potato's free_list; Weller & Romney 1988): the annotator types items one at a time, Enter
adding each to the end of the list, and may delete one (and undo that); the order and when each item came are the
data. designs/free_list.js keeps the list as JSON in the scheme's field, as Potato's page keeps it:
{"items": [...], "timings_ms": [...], "elapsed_ms": n} (the time from the first focus on the box), and with a time
limit, which opens the list with a Start button and locks it at 0:00, "time_up"."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import Field, model_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, read_json, scheme_type

LONGEST = 200  # characters in one item, as Potato's page allows


class FreeList(SchemeBase):
    """Items typed one at a time, in the order they come to mind."""

    annotation_type: Literal["free_list"]
    min_items: int | None = Field(None, ge=1, description="the fewest items a required list may have (an optional "
                                                          "one is taken short, as in Potato)")
    max_items: int | None = Field(None, ge=1, description="the most items a list may have (the box closes then)")
    allow_duplicates: bool = Field(False, description="the same item twice (case and spaces aside) is kept")
    placeholder: str = Field("Type an item, then press Enter", description="shown in the empty box")
    time_limit_s: float | None = Field(None, gt=0, description="seconds to list in: the list opens with a Start "
                                                              "button and locks when the time is up")
    normalize: bool | list[Literal["lowercase", "trim"]] = Field(
        False, description="Potato's: applied by its cultural-domain export, never to what is stored; kept, not run")

    @model_validator(mode="after")
    def _bounds(self) -> FreeList:
        if self.min_items and self.max_items and self.min_items > self.max_items:
            raise ValueError(f"min_items ({self.min_items}) is larger than max_items ({self.max_items})")
        return self


def same(text: str) -> str:
    """An item as compared for duplicates: spaces collapsed, lower case (as Potato's page compares them)."""
    return " ".join(text.split()).lower()


@scheme_type
class FreeListType(SchemeType):
    name = "free_list"
    settings = FreeList
    aggregators = ("none",)
    potato_keys = ("instructions", "min_items", "max_items", "allow_duplicates", "placeholder", "time_limit_s",
                   "normalize")
    level = None  # lists are not compared item by item
    script = "designs/free_list.js"
    style = "designs/free_list.css"

    def read(self, scheme, fields, record):
        found = read_json(fields, "list", "type the items again")
        if found is None:
            return None
        items, timings = (found.get(key) if isinstance(found, dict) else None for key in ("items", "timings_ms"))
        if not isinstance(items, list) or not all(isinstance(item, str) and item.strip() for item in items):
            raise AnswerProblem("the list could not be read; reload the page and type the items again")
        items = [" ".join(item.split())[:LONGEST].rstrip() for item in items]
        # A timed list whose time ran out is answered as it stands, empty or short (as Potato takes it).
        time_up = bool(scheme.time_limit_s) and found.get("time_up") is True
        if not items and not time_up:
            return None
        # Fewer than min_items hold only a required list, as Potato's page holds only a required scheme to what its
        # widget says is missing.
        if scheme.required and scheme.min_items and len(items) < scheme.min_items and not time_up:
            raise AnswerProblem(f"list at least {scheme.min_items} items (now {len(items)})")
        if scheme.max_items and len(items) > scheme.max_items:
            raise AnswerProblem(f"list at most {scheme.max_items} items (now {len(items)})")
        if not scheme.allow_duplicates and len({same(item) for item in items}) < len(items):
            twice = next(item for place, item in enumerate(items) if same(item) in map(same, items[:place]))
            raise AnswerProblem(f"{twice!r} is on the list twice; delete one")
        if not isinstance(timings, list) or len(timings) != len(items) or not all(
                isinstance(time, int | float) and not isinstance(time, bool) and time >= 0 for time in timings):
            timings = [None] * len(items)  # a list given without its times (a model's) is still the list
        elapsed = found.get("elapsed_ms")
        return {"items": items, "timings_ms": [None if time is None else round(time) for time in timings],
                "elapsed_ms": round(elapsed) if isinstance(elapsed, int | float) and not isinstance(elapsed, bool)
                and elapsed >= 0 else max([time for time in timings if time is not None], default=0),
                **({"time_up": time_up} if scheme.time_limit_s else {})}

    def answer_schema(self, scheme):
        # A timed list may end short when its time runs out (read checks min_items against time_up), an optional
        # list at any length.
        least = 0 if scheme.time_limit_s else (scheme.min_items if scheme.required else None) or 1
        bounds = {"minItems": least, **({"maxItems": scheme.max_items} if scheme.max_items else {})}
        return {"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": LONGEST}, **bounds},
            "timings_ms": {"type": "array", "items": {"type": ["integer", "null"], "minimum": 0}},
            "elapsed_ms": {"type": "integer", "minimum": 0},
            **({"time_up": {"type": "boolean"}} if scheme.time_limit_s else {})},
            "required": ["items"], "additionalProperties": False}

    def widget_context(self, scheme, record, field, keys):
        seconds = round(scheme.time_limit_s or 0)
        return {"clock": f"{seconds // 60}:{seconds % 60:02d}"}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(value, ensure_ascii=False)} if isinstance(value, dict) else {}

    def potato_answer(self, scheme, value, record):
        # Potato's page keeps the list as JSON in one input of the scheme's name, with its clock.
        said = {"items": value["items"], "timings_ms": value.get("timings_ms") or [None] * len(value["items"]),
                "elapsed_ms": value.get("elapsed_ms", 0), "time_up": value.get("time_up", False), "started": True}
        return {"labels": {scheme.name: json.dumps(said, ensure_ascii=False, separators=(",", ":"))}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        return {"": found} if found else {}

    def told(self, scheme, record=None):
        return ('Answer {"items": [...]}, the items in the order they come to mind'
                + (f", at least {scheme.min_items}" if scheme.min_items else "")
                + (f", at most {scheme.max_items}" if scheme.max_items else "") + ".")

    def card_labels(self, scheme):
        return "a list of items typed in order"
