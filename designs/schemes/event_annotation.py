"""event_annotation: n-ary events over the spans another span scheme of the item marked (Potato's event_annotation):
each event of one of `event_types`, with a trigger span and a span per argument role, as in "ATTACK(attacker=John,
target=Mary)". The form field holds the events as JSON, [[type, [start, end, label], [[role, [start, end, label]],
...]], ...], which the page's pickers write (span-extras.js); the server checks each against the spans marked in the
same answer, and the trigger and argument labels against what the event type allows."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, field_validator

from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    Strict,
    an,
    no_repeats,
    one_of,
    read_json,
    scheme_type,
)
from designs.schemes.span import EXTRAS, allowed_label, most_give, span_at, spans_named, unknown_labels

MAX_EVENTS = 100
# The colours Potato gives event types without their own, in turn (server_utils/schemas/event_annotation.py).
EVENT_COLOURS = ("#dc2626", "#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#c026d3", "#ca8a04", "#4f46e5",
                 "#059669")


class Argument(Strict):
    """One role of an event type, filled by one span."""

    role: str = Field(min_length=1, max_length=100)
    entity_types: list[str] = Field(default_factory=list, description="span labels that may fill the role (any when "
                                                                      "empty)")
    required: bool = Field(False, description="an event of this type is not made without it")


class EventType(Strict):
    """One kind of event: its name, the span labels that may be its trigger, and its argument roles."""

    type: str = Field(min_length=1, max_length=100)
    trigger_labels: list[str] = Field(default_factory=list, description="span labels that may be the trigger (any "
                                                                        "when empty)")
    arguments: list[Argument] = Field(default_factory=list)
    color: str | None = Field(None, description="the colour of its events in the list and in Potato's form")

    @field_validator("arguments", mode="after")
    @classmethod
    def _distinct_roles(cls, arguments: list[Argument]) -> list[Argument]:
        no_repeats([argument.role for argument in arguments], "arguments", "role")
        return arguments


class EventAnnotation(SchemeBase):
    """Events over the spans of another span scheme (span_schema), each of one of event_types."""

    annotation_type: Literal["event_annotation"]
    span_schema: str = Field(description="the span scheme whose spans are triggers and arguments")
    event_types: list[EventType] = Field(min_length=1)
    visual_display: dict[str, Any] | None = Field(None, description="Potato's arcs over the text; read and kept, "
                                                                    "not drawn: events are listed under the pickers")

    @field_validator("event_types", mode="after")
    @classmethod
    def _distinct_types(cls, types: list[EventType]) -> list[EventType]:
        no_repeats([kind.type for kind in types], "event_types", "type")
        return types


def colours(scheme: EventAnnotation) -> list[tuple[str, str]]:
    """Each event type with its colour: its own, or Potato's next in turn."""
    return [(kind.type, kind.color or EVENT_COLOURS[number % len(EVENT_COLOURS)])
            for number, kind in enumerate(scheme.event_types)]


def _span(entry: Any, text: str) -> dict[str, Any]:
    start, end, label = span_at(entry, text)
    return {"start": start, "end": end, "label": label}


def _where(span: dict[str, Any]) -> tuple:
    return (span["start"], span["end"], span["label"])


def _key(event: dict[str, Any]) -> tuple:
    return (event["type"], _where(event["trigger"]),
            tuple(sorted((argument["role"], *_where(argument)) for argument in event["arguments"])))


@scheme_type
class EventAnnotationType(SchemeType):
    name = "event_annotation"
    settings = EventAnnotation
    aggregators = ("majority", "none")
    potato_keys = ("span_schema", "event_types", "visual_display")
    level = None  # events are kept and combined, not compared: two annotators' spans seldom meet exactly
    script = EXTRAS  # beside the span scheme's spans.js

    def read(self, scheme, fields, record):
        given = read_json(fields, "events", "make them again")
        if given is None:
            return None
        if not isinstance(given, list) or len(given) > MAX_EVENTS:
            raise AnswerProblem(f"expected a list of at most {MAX_EVENTS} events")
        kinds = {kind.type: kind for kind in scheme.event_types}
        events, triggers = [], set()
        for entry in given:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) and entry[0] in kinds
                    and isinstance(entry[2], list)):
                raise AnswerProblem(f"{str(entry)[:40]} is not an event [type, trigger, arguments] of one of "
                                    f"{', '.join(kinds)}")
            kind = kinds[entry[0]]
            trigger = _span(entry[1], record.text)
            allowed_label(trigger["label"], kind.trigger_labels, f"{an(kind.type)} event's trigger")
            # Potato's page keeps one event of a type per trigger: a second replaces the first.
            if (kind.type, _where(trigger)) in triggers:
                raise AnswerProblem(f"two {kind.type} events have the trigger at {trigger['start']}:{trigger['end']}")
            triggers.add((kind.type, _where(trigger)))
            roles = {argument.role: argument for argument in kind.arguments}
            filled = {}
            for pair in entry[2]:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and pair[0] in roles):
                    raise AnswerProblem(f"{str(pair)[:40]} is not an argument [role, span] of {an(kind.type)} event; "
                                        f"its roles are {', '.join(roles) or '(none)'}")
                if pair[0] in filled:
                    raise AnswerProblem(f"{an(kind.type)} event's {pair[0]} is given twice")
                span = _span(pair[1], record.text)
                allowed_label(span["label"], roles[pair[0]].entity_types, f"{an(kind.type)} event's {pair[0]}")
                filled[pair[0]] = span
            missing = [role for role, argument in roles.items() if argument.required and role not in filled]
            if missing:
                raise AnswerProblem(f"{an(kind.type)} event needs its {' and its '.join(missing)}")
            # The arguments in the order they were picked, as Potato's page keeps them.
            events.append({"type": kind.type, "trigger": trigger,
                           "arguments": [{"role": role, **span} for role, span in filled.items()]})
        return events

    def check_answers(self, scheme, value, answers):
        marked = {_where(span) for span in answers.get(scheme.span_schema) or []}
        for event in value:
            for what, span in (("trigger", event["trigger"]), *((arg["role"], arg) for arg in event["arguments"])):
                if _where(span) not in marked:
                    raise AnswerProblem(f"{an(event['type'])} event's {what} is a span not marked in "
                                        f"{scheme.span_schema} ({span['label']} at {span['start']}:{span['end']}); "
                                        f"mark it or remove the event")

    def references(self, scheme, design):
        spans, problems = spans_named(scheme, design)
        return problems or [
            problem for number, kind in enumerate(scheme.event_types)
            for problem in [*unknown_labels(spans, ("event_types", number, "trigger_labels"), kind.trigger_labels),
                            *(found for place, argument in enumerate(kind.arguments)
                              for found in unknown_labels(spans, ("event_types", number, "arguments", place,
                                                                  "entity_types"), argument.entity_types))]]

    def answer_schema(self, scheme):
        span = {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 1},
                "label": {"type": "string"}}
        roles = sorted({argument.role for kind in scheme.event_types for argument in kind.arguments})
        return {"type": "array", "maxItems": MAX_EVENTS, "items": {
            "type": "object", "required": ["type", "trigger", "arguments"], "additionalProperties": False,
            "properties": {
                "type": one_of([kind.type for kind in scheme.event_types]),
                "trigger": {"type": "object", "required": list(span), "additionalProperties": False,
                            "properties": span},
                "arguments": {"type": "array", "items": {
                    "type": "object", "required": ["role", *span], "additionalProperties": False,
                    "properties": {"role": one_of(roles) if roles else {"type": "string"}, **span}}}}}}

    def combine(self, scheme, values):
        """The events more than half the answers give, the same type, trigger and arguments."""
        return most_give(values, _key)

    def potato_answer(self, scheme, value, record):
        # As Potato's page stores an event (static/event-annotation.js): its spans by id, each argument's text, and
        # the type's colour with the trigger's text and label in its properties. Potato's ids are random; these
        # number the events and name each span as the span scheme's export names it.
        colour = dict(colours(scheme))

        def span_id(span: dict) -> str:
            return f"{scheme.span_schema}_{span['label']}_{span['start']}_{span['end']}"

        def text(span: dict) -> str:
            return record.text[span["start"]:span["end"]] if record is not None else ""

        return {"events": [{"id": f"event_{number}", "schema": scheme.name, "event_type": event["type"],
                            "trigger_span_id": span_id(event["trigger"]),
                            "arguments": [{"role": argument["role"], "span_id": span_id(argument),
                                           "text": text(argument)} for argument in event["arguments"]],
                            "properties": {"color": colour[event["type"]], "trigger_text": text(event["trigger"]),
                                           "trigger_label": event["trigger"]["label"]}}
                           for number, event in enumerate(value, 1)]}

    def potato_fields(self, scheme, saved, record):
        spans = saved.get("spans_by_id") or {}

        def end(span_id: str) -> dict[str, Any]:
            return {"start": spans[span_id]["start"], "end": spans[span_id]["end"], "label": spans[span_id]["name"]}

        # Potato's page keeps one event of a type on a trigger, a second replacing the first; its server's store
        # keeps both, in the order made: the last is the one its page kept.
        kept = {(event["event_type"], event["trigger_span_id"]): {
            "type": event["event_type"], "trigger": end(event["trigger_span_id"]),
            "arguments": [{"role": argument["role"], **end(argument["span_id"])} for argument in event["arguments"]]}
            for event in saved.get("events") or []}
        return self.form_fields(scheme, list(kept.values())) if kept else {}

    def form_fields(self, scheme, value, record=None):
        return {"": json.dumps([[event["type"], list(_where(event["trigger"])),
                                 [[argument["role"], list(_where(argument))] for argument in event["arguments"]]]
                                for event in value])}

    def widget_context(self, scheme, record, field, keys):
        return {"kinds": [(kind, colour) for kind, (_, colour) in
                          zip(scheme.event_types, colours(scheme), strict=True)]}

    def card_labels(self, scheme):
        return f"events ({', '.join(kind.type for kind in scheme.event_types)}) over spans of {scheme.span_schema}"
