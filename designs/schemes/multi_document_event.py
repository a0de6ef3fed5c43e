"""multi_document_event: Potato's cross-document events. An event lives above the documents of a batch, shared by
everyone who works on it (designs.models.SharedEvent, Potato's event registry): a title, a value for each slot of
the scheme's template, the documents that belong to it and the evidence cited for its slots, each a span of one
document. The page's widget (designs/multi_document_event.js) lists the batch's events, makes one, names it, fills
its slots, cites the words of the document for a slot, and puts the document in an event or takes it out, through
designs.event_views. A person's answer for a document is the events it belongs to as they left it: a JSON list of
event ids in one input of the scheme's name, as Potato's page keeps it."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Literal

from pydantic import Field, field_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, Strict, no_repeats, read_json, scheme_type

ID = r"^[A-Za-z0-9_.:-]{1,64}$"  # an event's id: Potato's evt_ and 12 hex digits, or a seed's own


class Slot(Strict):
    name: str = Field(min_length=1, max_length=60)
    description: str = Field("", description="what the slot holds, shown in its box")
    type: Literal["text"] = Field("text", description="Potato's slots are text")


class Citation(Strict):
    slot_name: str
    doc_id: str
    span_start: int = Field(ge=0)
    span_end: int = Field(ge=0)
    quoted_text: str = ""
    span_id: str = ""  # Potato's; empty on a citation its page makes
    created_by: str = ""
    created_at: str = ""


class SeedEvent(Strict):
    """An event the design gives before anyone works (Potato's seed_events)."""

    id: str | None = Field(None, pattern=ID)
    title: str = ""
    slot_values: dict[str, str] = Field(default_factory=dict)
    member_doc_ids: list[str] = Field(default_factory=list)
    evidence: list[Citation] = Field(default_factory=list)
    # What Potato's registry keeps of an event besides, read and left as they are.
    template_name: str = ""
    created_by: str = ""
    provenance: str = ""
    created_at: str = ""
    updated_at: str = ""

    @field_validator("member_doc_ids", mode="before")
    @classmethod
    def _ids_as_text(cls, ids: Any) -> Any:
        return [str(entry) for entry in ids] if isinstance(ids, list) else ids


class MultiDocumentEvent(SchemeBase):
    """Events kept above the documents, shared by everyone in the batch: each document put in the events it tells of,
    each event's slots filled and their evidence cited."""

    annotation_type: Literal["multi_document_event"]
    slots: list[Slot] = Field(default_factory=list, description="the template's slots each event fills")
    template_name: str = Field("event_template", description="the template's name, kept with each event")
    allow_annotator_create: bool = Field(True, description="annotators may make events (false: only the seeds)")
    seed_events: list[SeedEvent] = Field(default_factory=list, description="events there before anyone works")

    @field_validator("slots")
    @classmethod
    def _distinct_slots(cls, slots: list[Slot]) -> list[Slot]:
        no_repeats([slot.name for slot in slots], "slots", "slot")
        return slots

    @field_validator("seed_events")
    @classmethod
    def _distinct_seeds(cls, seeds: list[SeedEvent]) -> list[SeedEvent]:
        no_repeats([seed.id for seed in seeds if seed.id], "seed_events", "id")
        return seeds

    def seed_ids(self) -> list[str]:
        """Each seed's id: its own, or Potato's evt_seed_<n>."""
        return [seed.id or f"evt_seed_{number}" for number, seed in enumerate(self.seed_events)]


@scheme_type
class MultiDocumentEventType(SchemeType):
    name = "multi_document_event"
    settings = MultiDocumentEvent
    aggregators = ("majority", "none")
    potato_keys = ("slots", "allow_annotator_create")
    potato_json = True  # Potato's page keeps the event ids as JSON in one input of the scheme's name
    level = "nominal"
    keeps_shared = True
    script = "designs/multi_document_event.js"
    style = "designs/multi_document_event.css"

    def read(self, scheme, fields, record):
        if fields.get() == "[]":
            return []  # in no event, as said (or every event taken back): an answer, as Potato's "[]" is
        found = read_json(fields, "the events", "put the document in its events again")
        if found is None:
            return None
        if not isinstance(found, list) or not all(isinstance(entry, str) and re.match(ID, entry) for entry in found):
            raise AnswerProblem("the events must be a list of event ids")
        if len(set(found)) < len(found):
            raise AnswerProblem("an event is named twice")
        return found

    def answer_schema(self, scheme):
        return {"type": "array", "uniqueItems": True, "items": {"type": "string", "pattern": ID}}

    def check_shared(self, scheme, value, kept):
        gone = [event for event in value if event not in kept]
        if gone:
            one = len(gone) == 1
            raise AnswerProblem(f"{', '.join(gone)} {'is not an event' if one else 'are not events'} of this batch "
                                f"(never made, or deleted by whoever made {'it' if one else 'them'} while the page "
                                f"was open); reload the page, put the document in its events again and submit")

    def units(self, scheme, value, text=""):
        return {event: True for event in value}  # agreement event by event: in it or not

    def combine(self, scheme, values):
        """The events more than half the answers put the document in."""
        counts = Counter(event for value in values for event in value)
        return [event for event, count in counts.items() if count * 2 > len(values)]

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps(value)}

    def widget_context(self, scheme, record, field, keys):
        return {"doc": record.id, "slots_json": json.dumps([slot.model_dump() for slot in scheme.slots])}

    def from_potato(self, converted, importer):
        # Potato keeps the template (its slots, whether annotators make events, its seeds) in the config's
        # event_template block, which its page reads over the scheme's own slots.
        template = importer.raw.get("event_template")
        if isinstance(template, dict):
            for key in ("slots", "allow_annotator_create"):
                if template.get(key) is not None:
                    converted[key] = template[key]
            if template.get("name"):
                converted["template_name"] = str(template["name"])
            seeds = template.get("seed_events")
            if isinstance(seeds, str):
                loaded = importer.json_file(("event_template", "seed_events"), seeds)
                seeds = loaded.get("events", loaded) if isinstance(loaded, dict) else loaded
            if isinstance(seeds, dict):
                seeds = list(seeds.values())
            if seeds:
                converted["seed_events"] = seeds
        return [converted]

    def card_labels(self, scheme):
        slots = ", ".join(slot.name for slot in scheme.slots)
        return f"events across documents{f' (slots: {slots})' if slots else ''}"
