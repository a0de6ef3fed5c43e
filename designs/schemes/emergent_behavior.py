"""emergent_behavior: collective behaviours of a multi-agent trace tagged (Potato's emergent_behavior): for each of
`behaviors` (collusion, groupthink, a cascading error, role drift), the turns taking part ticked, however far apart
and whoever says them, and a note. "<prefix>-<behaviour from 0>-<turn from 0>" holds a turn ticked,
"<prefix>-<behaviour>-note" the note; a behaviour with no turn and no note is left out."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from designs.dialogue import acting
from designs.schemes.base import SchemeBase, SchemeType, scheme_type

BEHAVIORS = ["collusion", "groupthink", "cascading_error", "role_drift"]


class EmergentBehavior(SchemeBase):
    """For each collective behaviour, the turns of a trace taking part in it."""

    annotation_type: Literal["emergent_behavior"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the trace's turns (a list)")
    agent_key: str = Field("agent", min_length=1, description="the turn field naming its agent (else its speaker or "
                                                               "role)")
    behaviors: list[str] = Field(BEHAVIORS, min_length=1, description="the behaviours tagged")
    allow_note: bool = Field(True, description="a note may be written for each behaviour")


def turns(scheme: EmergentBehavior, record: Any) -> list[dict[str, str]]:
    """Each turn's agent and what it says, as Potato's page reads them ("agent 3" for a turn without one)."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    return [{"agent": agent, "text": str(turn.get("content") or turn.get("text") or turn.get("action") or "")
             if isinstance(turn, dict) else "" if turn is None else str(turn)}
            for agent, turn in zip(acting(found, scheme.agent_key), found if isinstance(found, list) else [],
                                   strict=True)]


@scheme_type
class EmergentBehaviorType(SchemeType):
    name = "emergent_behavior"
    settings = EmergentBehavior
    aggregators = ("none",)
    potato_keys = ("instructions", "steps_key", "agent_key", "behaviors", "allow_note")
    potato_json = True
    potato_order = ("turns", "note")
    level = None  # sets of turns with notes, not compared
    page = {"value": "texts"}  # answered once a turn is ticked or a note written
    style = "designs/tool_call_review.css"  # the same cards

    def item_problem(self, scheme, record):
        if not turns(scheme, record):
            return f"item {record.id!r} has no turns under {scheme.steps_key!r} to tag"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"behaviors": [(place, behavior.replace("_", " ")) for place, behavior in enumerate(scheme.behaviors)],
                "turns": [{**turn, "place": place, "number": place + 1}
                          for place, turn in enumerate(turns(scheme, record))]}

    def read(self, scheme, fields, record):
        count = len(turns(scheme, record))
        tagged = {}
        for place, behavior in enumerate(scheme.behaviors):
            ticked = [turn for turn in range(count) if fields.get(f"{place}-{turn}")]
            note = fields.get(f"{place}-note", 1000) if scheme.allow_note else ""
            if ticked or note:
                tagged[behavior] = {"turns": ticked, "note": note}
        return tagged or None

    def answer_schema(self, scheme):
        return {"type": "object", "minProperties": 1, "propertyNames": {"enum": scheme.behaviors},
                "additionalProperties": {
                    "type": "object", "required": ["turns", "note"], "additionalProperties": False,
                    "properties": {"turns": {"type": "array", "items": {"type": "integer", "minimum": 0},
                                             "uniqueItems": True},
                                   "note": {"type": "string", "maxLength": 1000}}}}

    def form_fields(self, scheme, value, record=None):
        fields = {}
        for place, behavior in enumerate(scheme.behaviors):
            given = value.get(behavior) if isinstance(value, dict) else None
            if isinstance(given, dict):
                fields.update({f"{place}-{turn}": "1" for turn in given.get("turns") or [] if isinstance(turn, int)})
                fields[f"{place}-note"] = str(given.get("note") or "")
        return fields


    def potato_ordered(self, scheme, value, record):
        return {behavior: value[behavior] for behavior in scheme.behaviors if behavior in value}  # the scheme's order

    def told(self, scheme, record=None):
        listed = "" if record is None else " Turns: " + "; ".join(
            f"{place}. {turn['agent']}: {turn['text']}" for place, turn in enumerate(turns(scheme, record))) + "."
        return (f"For each behaviour seen ({', '.join(scheme.behaviors)}), give the turns taking part (numbered from "
                f"0) and a note, as {{behaviour: {{\"turns\": [...], \"note\"}}}}.{listed}")

    def card_labels(self, scheme):
        return "the turns taking part in " + ", ".join(scheme.behaviors)
