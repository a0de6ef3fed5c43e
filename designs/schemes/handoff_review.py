"""handoff_review: each handoff of a multi-agent trace reviewed (Potato's handoff_review, after MAST's inter-agent
failure modes): wherever the acting agent changes from one step to the next, a card "A → B" with the issues seen
(`flags`: information lost, a constraint dropped, garbled, the goal drifted) and the handoff's quality 1 to
`quality_scale`. "<prefix>-<handoff from 0>" holds the quality, "<prefix>-<handoff>-flag-<flag from 0>" each issue
ticked; any handoff may be left, and a quality picked again is taken back (designs/retract.js)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any, Literal

from pydantic import Field

from designs.dialogue import acting
from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, majority, point, scheme_type

FLAGS = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]


class HandoffReview(SchemeBase):
    """Each handoff between agents of a trace flagged and rated."""

    annotation_type: Literal["handoff_review"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the trace's steps (a list)")
    agent_key: str = Field("agent", min_length=1, description="the step field naming its agent (else its speaker or "
                                                               "role)")
    flags: list[str] = Field(FLAGS, min_length=1, description="the issues a handoff may show")
    quality_scale: int = Field(5, ge=2, le=10, description="the highest quality (from 1)")


def handoffs(scheme: HandoffReview, record: Any) -> list[dict[str, Any]]:
    """Where the acting agent changes (as Potato's page finds them): the step it changes at, from whom, to whom."""
    agents = acting(record.fields.get(scheme.steps_key) if record is not None else None, scheme.agent_key)
    return [{"step": place, "from": before, "to": agent}
            for place, (before, agent) in enumerate(pairwise(agents), 1) if agent != before]


@scheme_type
class HandoffReviewType(SchemeType):
    name = "handoff_review"
    settings = HandoffReview
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "steps_key", "agent_key", "flags", "quality_scale")
    potato_json = True
    potato_order = ("index", "step", "from", "to", "flags", "quality")
    level = "ordinal"
    page = {"value": "checked"}  # answered once a handoff is flagged or rated
    script = "designs/retract.js"
    style = "designs/tool_call_review.css"  # the same cards

    def item_problem(self, scheme, record):
        if not handoffs(scheme, record):
            return f"item {record.id!r} has no handoff between agents in its trace under {scheme.steps_key!r}"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"handoffs": [{**handoff, "index": index, "number": handoff["step"] + 1}
                             for index, handoff in enumerate(handoffs(scheme, record))],
                "flags": [(place, flag.replace("_", " ")) for place, flag in enumerate(scheme.flags)],
                "points": list(range(1, scheme.quality_scale + 1))}

    def read(self, scheme, fields, record):
        reviewed = []
        found = handoffs(scheme, record)
        for index, handoff in enumerate(found):
            flags = [flag for place, flag in enumerate(scheme.flags) if fields.get(f"{index}-flag-{place}")]
            quality = fields.get(str(index))
            if not (flags or quality):
                continue
            entry = {"index": index, "step": handoff["step"], "from": handoff["from"], "to": handoff["to"],
                     "flags": flags}
            if quality:
                # Left out when not given: the scale has no 0.
                entry["quality"] = point(quality, scheme.quality_scale, f"handoff {handoff['from']} → "
                                         f"{handoff['to']}", "quality")
            reviewed.append(entry)
        if scheme.required and len(reviewed) < len(found):
            raise AnswerProblem(f"{len(reviewed)} of {len(found)} handoffs reviewed")
        return reviewed or None

    def answer_schema(self, scheme):
        return {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["index", "step", "from", "to", "flags"], "additionalProperties": False,
            "properties": {"index": {"type": "integer", "minimum": 0}, "step": {"type": "integer", "minimum": 0},
                           "from": {"type": "string"}, "to": {"type": "string"},
                           "flags": {"type": "array", "items": {"enum": scheme.flags}, "uniqueItems": True},
                           "quality": {"type": "integer", "minimum": 1, "maximum": scheme.quality_scale}}}}

    def form_fields(self, scheme, value, record=None):
        fields = {}
        for entry in value if isinstance(value, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
                continue  # a model's answer may be anything
            if entry.get("quality"):
                fields[str(entry["index"])] = str(entry["quality"])
            fields.update({f"{entry['index']}-flag-{place}": "1" for place, flag in enumerate(scheme.flags)
                           if flag in (entry.get("flags") or [])})
        return fields

    def units(self, scheme, value, text=""):
        return {entry["index"]: entry["quality"] for entry in value if "quality" in entry}  # agreement per handoff

    def combine(self, scheme, values):
        seen: dict[int, list[dict[str, Any]]] = {}
        for value in values:
            for entry in value:
                seen.setdefault(entry["index"], []).append(entry)
        combined = []
        for _, entries in sorted(seen.items()):
            # An issue is the handoff's when most of those who answered the item ticked it.
            flags = [flag for flag in scheme.flags
                     if sum(flag in entry["flags"] for entry in entries) * 2 > len(values)]
            quality = majority([entry["quality"] for entry in entries if "quality" in entry])
            combined.append({key: entries[0][key] for key in ("index", "step", "from", "to")} | {"flags": flags} | (
                {"quality": quality} if quality is not None else {}))
        return combined


    def told(self, scheme, record=None):
        listed = "" if record is None else " Handoffs: " + "; ".join(
            f"{index}. {handoff['from']} → {handoff['to']} at step {handoff['step']}"
            for index, handoff in enumerate(handoffs(scheme, record))) + "."
        return (f"For each handoff, give the issues seen ({', '.join(scheme.flags)}) and its quality 1 to "
                f"{scheme.quality_scale}, as a list of {{index, step, from, to, flags, quality}}.{listed}")

    def card_labels(self, scheme):
        return f"the issues of each handoff and its quality 1 to {scheme.quality_scale}"
