"""card_sort: the cards of an item's list (`items_field`) sorted into groups, as Potato's card_sort: the groups the
scheme names (a closed sort), or those and groups the annotator makes and names (an open sort). A card is picked up
(a click, Enter or Space) and put in a group (a click on it, Enter on it, or its number; 0 puts it back among the
unsorted); a card left unsorted is not in the answer. The page keeps the sort as Potato's JSON in the scheme's field
(designs/card_sort.js): every group in the order it is on the page, each with its cards in the order they went in.
The answer keeps the groups as a list, because PostgreSQL's jsonb would sort an object's keys."""

from __future__ import annotations

import json
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, field_validator, model_validator

from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    distinct_texts,
    majority,
    read_json,
    scheme_type,
)


class CardSort(SchemeBase):
    """Cards sorted into groups given, or made by the annotator."""

    annotation_type: Literal["card_sort"]
    items_field: str = Field("items", min_length=1, description="the item field holding the cards (a list of texts)")
    mode: Literal["closed", "open"] = Field("closed", description="closed: the groups are the scheme's; open: the "
                                                                  "annotator may add groups of their own")
    groups: list[str] = Field([], description="the groups the cards go in (an open sort starts with them)")
    max_groups: int = Field(20, ge=1, le=50, description="the most groups an open sort may hold")

    _distinct = field_validator("groups")(distinct_texts)

    @model_validator(mode="after")
    def _groups(self) -> CardSort:
        if self.mode == "closed" and not self.groups:
            raise ValueError("a closed card sort needs its groups; name them under groups, or write mode: open for "
                             "groups the annotator makes")
        if len(self.groups) > self.max_groups:
            raise ValueError(f"{len(self.groups)} groups is more than max_groups ({self.max_groups})")
        return self


def cards(scheme: CardSort, record: Any) -> list[str]:
    """The item's cards, in its list's order, as Potato's page lays them out (each as text)."""
    found = record.fields.get(scheme.items_field) if record is not None else None
    return [str(card) for card in found] if isinstance(found, list) else []


def as_potato(value: list[dict[str, Any]]) -> dict[str, list[str]]:
    """A sort as Potato's page keeps it: {group: [its cards]}, groups in page order."""
    return {group["group"]: group["cards"] for group in value}


@scheme_type
class CardSortType(SchemeType):
    name = "card_sort"
    settings = CardSort
    aggregators = ("majority", "none")
    potato_keys = ("items_field", "mode", "groups")
    potato_said = {"allow_multiple": "each card still goes in one group, as on Potato 2.12.1's page, which moves a "
                                     "card rather than copying it",
                   "allow_empty_groups": "not checked, as Potato 2.12.1's page does not check it"}
    potato_json = True
    asked_once = True
    style = "designs/card_sort.css"
    script = "designs/card_sort.js"

    def item_problem(self, scheme, record):
        found = cards(scheme, record)
        if not found:
            return f"item {record.id!r} has no list of cards under {scheme.items_field!r} to sort"
        if len(set(found)) < len(found) or any(not card.strip() for card in found):
            return f"item {record.id!r} has the same card twice, or an empty one, under {scheme.items_field!r}"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"cards": cards(scheme, record), "groups": scheme.groups, "open": scheme.mode == "open"}

    def read(self, scheme, fields, record):
        given = read_json(fields, "sort", "sort the cards again")
        if not given:  # nothing sorted, or an open sort's every group removed
            return None
        if not isinstance(given, dict) or any(not isinstance(placed, list) for placed in given.values()):
            raise AnswerProblem("the sort could not be read; reload the page and sort the cards again")
        names = [str(group).strip() for group in given]
        if any(not name for name in names) or len(set(names)) < len(names):
            raise AnswerProblem("each group needs a name of its own")
        own = [name for name in names if name not in scheme.groups]
        if scheme.mode == "closed" and own:
            raise AnswerProblem(f"only the groups {', '.join(scheme.groups)} may be used")
        if len(scheme.groups) + len(own) > scheme.max_groups:
            raise AnswerProblem(f"make at most {scheme.max_groups} groups")
        known, seen = cards(scheme, record), set()
        for placed in given.values():
            for card in placed:
                if card not in known:
                    raise AnswerProblem(f"{card!r} is not one of the item's cards")
                if card in seen:
                    raise AnswerProblem(f"{card!r} is in two groups; each card goes in one")
                seen.add(card)
        # In page order: the scheme's groups (one left out, as a model may leave an empty one, is empty), then the
        # annotator's in the order made.
        placed = dict(zip(names, given.values(), strict=True))
        return [{"group": name, "cards": list(placed.get(name, []))} for name in [*scheme.groups, *own]]

    def answer_schema(self, scheme):
        group = {"type": "object", "required": ["group", "cards"], "additionalProperties": False,
                 "properties": {"group": {"type": "string", "minLength": 1},
                                "cards": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}}}
        return {"type": "array", "items": group, "maxItems": scheme.max_groups}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(as_potato(value), ensure_ascii=False)} if isinstance(value, list) else {}

    def units(self, scheme, value, text=""):
        # Agreement per card: the group it went in (a card left unsorted is not compared).
        return {card: group["group"] for group in value for card in group["cards"]}

    def combine(self, scheme, values):
        # Each card in the group most annotators put it in; the groups in the order they first come.
        placed = {card: majority([group["group"] for value in values for group in value if card in group["cards"]])
                  for card in dict.fromkeys(card for value in values for group in value for card in group["cards"])}
        names = dict.fromkeys([*scheme.groups, *(group["group"] for value in values for group in value)])
        return [{"group": name, "cards": [card for card, group in placed.items() if group == name]}
                for name in names if name in scheme.groups or name in placed.values()]

    # Label Studio: a closed sort is its Ranker with a Bucket per group over a List of the cards (each card its own
    # id, so a result names it as written); an open sort has no tag there (Label Studio's buckets are the config's),
    # so its answers are left out of that export.
    def labelstudio_objects(self, scheme):
        return [("List", scheme.items_field)]

    def labelstudio_data(self, scheme, record):
        return {scheme.items_field: [{"id": card, "title": card} for card in cards(scheme, record)]}

    def labelstudio_control(self, scheme, to_name):
        if scheme.mode == "open":
            return ""
        buckets = "".join(f"<Bucket name={quoteattr(group)} title={quoteattr(group)}/>" for group in scheme.groups)
        return (f"<Ranker name={quoteattr(scheme.name)} toName={quoteattr(to_name)}"
                + (' required="true"' if scheme.required else "") + f">{buckets}</Ranker>")

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"type": "ranker", "value": {"ranker": {group["group"]: group["cards"] for group in value
                                                         if group["cards"]}}}]

    def potato_ordered(self, scheme, value, record):
        return as_potato(value)

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get(scheme.name)
        return {"": found} if found else {}  # the widget sends Potato's own {group: [cards]}

    def told(self, scheme, record=None):
        listed = f" Cards: {'; '.join(cards(scheme, record))}." if record is not None else ""
        groups = f"the groups {'; '.join(scheme.groups)}" if scheme.groups else "groups you name"
        more = " (and groups you name, if none fits)" if scheme.mode == "open" and scheme.groups else ""
        return (f"Sort the cards into {groups}{more}, as [{{\"group\": name, \"cards\": [card, ...]}}, ...], every "
                f"group listed, each card in at most one.{listed}")

    def card_labels(self, scheme):
        if scheme.mode == "closed":
            return ", ".join(scheme.groups)
        return f"{', '.join(scheme.groups)} and groups the annotator makes" if scheme.groups else \
            "groups the annotator makes"

    def from_potato(self, converted, importer):
        if isinstance(converted.get("groups"), list):  # a group named by a number is its text, as on Potato's page
            converted["groups"] = [str(group) for group in converted["groups"]]
        return [converted]
