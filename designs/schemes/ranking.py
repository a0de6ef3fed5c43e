"""ranking: things put in order, the first the most (Potato's ranking; Label Studio's Ranker). The things are the
scheme's labels, or an item's own list (items_key: strings, or objects with an id and a title or text, as Label
Studio's List holds them); with buckets, each thing is sorted into a named bucket, kept in order there. The form
field holds the order as JSON, ["b", "a", "c"] (with buckets {"bucket": ["b", "a"], ...}), which the page's move
buttons and bucket pickers write (ranking.js)."""

from __future__ import annotations

import json
import statistics
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    Label,
    LabelledScheme,
    SchemeType,
    labels_in_any_form,
    one_of,
    read_json,
    scheme_type,
)


class Ranking(LabelledScheme):
    """Things put in order, the first the most: the labels, or each item's own list (items_key)."""

    annotation_type: Literal["ranking"]
    labels: list[Label] = Field(default_factory=list, description="the things to rank, the same on every item",
                                json_schema_extra=labels_in_any_form)
    items_key: str | None = Field(None, description="an item field holding its own things to rank (a list of "
                                                    "strings, or of objects with an id and a title or text)")
    buckets: list[str] = Field(default_factory=list, description="named buckets to sort the things into, each "
                                                                 "kept in order (none: one order of all)")

    @model_validator(mode="after")
    def _things(self) -> Ranking:
        if bool(self.labels) == bool(self.items_key):
            raise ValueError("give the things to rank as labels, or as an item field (items_key), one of them")
        if len(set(self.buckets)) != len(self.buckets):
            raise ValueError("two buckets have the same name; each must be different")
        return self


def things(scheme: Ranking, record: Any) -> list[dict[str, str]]:
    """Each thing to rank on `record`, {id, name, body, tooltip}: the labels, or the item's list (a Label Studio
    List's entries: {id, title, body}; a model's name and its answer, say)."""
    if not scheme.items_key:
        return [{"id": label.name, "name": label.description or label.name, "body": "", "tooltip": label.tooltip}
                for label in scheme.labels]
    found = record.fields.get(scheme.items_key)
    entries = found if isinstance(found, list) else []
    return [{"id": str(entry.get("id", number)), "name": str(entry.get("title") or entry.get("id", number)),
             "body": str(entry.get("body") or entry.get("text") or ""), "tooltip": ""}
            if isinstance(entry, dict) else {"id": str(entry), "name": str(entry), "body": "", "tooltip": ""}
            for number, entry in enumerate(entries, 1)]


@scheme_type
class RankingType(SchemeType):
    name = "ranking"
    settings = Ranking
    aggregators = ("borda", "none")
    potato_keys = ("labels",)
    potato_humanizes = True
    labelstudio_tags = ("Ranker",)
    page = {"value": "order"}
    script = "designs/ranking.js"
    level = "ordinal"  # per thing: its place

    def item_problem(self, scheme, record):
        if scheme.items_key and len(things(scheme, record)) < 2:
            return f"item {record.id!r} has no list of two or more under {scheme.items_key!r} to rank"
        return None

    def read(self, scheme, fields, record):
        order = read_json(fields, "order", "order them again")
        if order is None:
            return None
        names = [thing["id"] for thing in things(scheme, record)]
        if scheme.buckets:
            return self._sorted(scheme, order, names)
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(names):
            raise AnswerProblem(f"put every one of {', '.join(names)} in order, each once")
        return [str(name) for name in order]

    def _sorted(self, scheme, given, names):
        if not isinstance(given, dict) or not set(given) <= set(scheme.buckets) or not all(
                isinstance(entries, list) for entries in given.values()):
            raise AnswerProblem(f"sort them into the buckets {', '.join(scheme.buckets)}")
        placed = [str(name) for entries in given.values() for name in entries]
        if len(placed) != len(set(placed)) or not set(placed) <= set(names):
            raise AnswerProblem(f"put each of {', '.join(names)} in one bucket at most")
        return {bucket: [str(name) for name in given[bucket]] for bucket in scheme.buckets if given.get(bucket)}

    def answer_schema(self, scheme):
        names = one_of([label.name for label in scheme.labels]) if scheme.labels else {"type": "string"}
        order = {"type": "array", "items": names, "uniqueItems": True, "minItems": 1}
        if scheme.labels and not scheme.buckets:
            order.update(minItems=len(scheme.labels), maxItems=len(scheme.labels))
        if scheme.buckets:
            return {"type": "object", "properties": dict.fromkeys(scheme.buckets, order),
                    "additionalProperties": False, "minProperties": 1}
        return order

    def units(self, scheme, value, text=""):
        # Agreement per thing: its place (1 the first), compared as ordinal values (within its bucket).
        orders = value.values() if isinstance(value, dict) else [value]
        return {name: place for order in orders for place, name in enumerate(order, 1)}

    def combine(self, scheme, values):
        """Borda: the things by their mean place over the answers (ties in the order first seen); with buckets,
        each thing in the bucket most put it in."""
        if scheme.buckets:
            votes: dict[str, list[str]] = {}
            for value in values:
                for bucket, names in value.items():
                    for name in names:
                        votes.setdefault(name, []).append(bucket)
            chosen = {name: statistics.mode(buckets) for name, buckets in votes.items()}
            return {bucket: [name for name in votes if chosen[name] == bucket] for bucket in scheme.buckets
                    if bucket in chosen.values()}
        names = list(dict.fromkeys(name for value in values for name in value))
        places = {name: statistics.fmean(value.index(name) for value in values if name in value) for name in names}
        return sorted(names, key=lambda name: (places[name], names.index(name)))

    def widget_context(self, scheme, record, field, keys):
        return {"things": things(scheme, record)}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(value)}

    def potato_answer(self, scheme, value, record):
        # Potato's ranking form has one input, rank_order: the labels in order, comma-joined.
        return {"labels": {"rank_order": ",".join(value)}}

    def potato_fields(self, scheme, saved, record):
        found = (saved.get("labels") or {}).get("rank_order")
        return self.form_fields(scheme, found.split(",")) if found else {}

    def from_labelstudio(self, control, importer):
        buckets = [name for _, name in importer.children(control, "Bucket", key="name")]
        return {"items_key": importer.list_of(control), **({"buckets": buckets} if buckets else {})}

    def labelstudio_objects(self, scheme):
        # The things are a List: the item's own list, or the labels as one (each task has the same).
        return [("List", scheme.items_key or f"{scheme.name}_things")]

    def labelstudio_data(self, scheme, record):
        return {scheme.items_key or f"{scheme.name}_things": [
            {"id": thing["id"], "title": thing["name"], **({"body": thing["body"]} if thing["body"] else {})}
            for thing in things(scheme, record)]}

    def labelstudio_control(self, scheme, to_name):
        buckets = "".join(f"<Bucket name={quoteattr(bucket)} title={quoteattr(bucket)}/>" for bucket in scheme.buckets)
        return (f"<Ranker name={quoteattr(scheme.name)} toName={quoteattr(to_name)}"
                + (' required="true"' if scheme.required else "") + (f">{buckets}</Ranker>" if buckets else "/>"))

    def labelstudio_results(self, scheme, value, to_name, regions):
        # A simple ranking is keyed by the control's name, a sorting by its buckets (label-studio-sdk's RankerValue).
        ranked = value if scheme.buckets else {scheme.name: value}
        return [{"type": "ranker", "value": {"ranker": ranked}}]

    def from_labelstudio_results(self, scheme, results, regions):
        ranked = results[0]["value"].get("ranker") or {}
        return {bucket: names for bucket, names in ranked.items() if bucket in scheme.buckets} if scheme.buckets \
            else next(iter(ranked.values()), None)

    def card_labels(self, scheme):
        shown = ", ".join(label.name for label in scheme.labels) or f"each item's {scheme.items_key}"
        return f"an order of {shown}" + (f" in buckets {', '.join(scheme.buckets)}" if scheme.buckets else "")


