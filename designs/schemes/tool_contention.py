"""tool_contention: where agents of a multi-agent run contend for a shared resource, each contention classified
(Potato's tool_contention, after DPBench): the run's tool calls drawn on a timeline, a lane per agent, and each
overlap of two agents' calls on the same resource (a contention) a card with `contention_labels` (deadlock,
circular wait, race condition, benign unless given). "<prefix>-<contention from 0>" holds a contention's label;
any may be left, and a label picked again is taken back (designs/retract.js), as Potato's second click takes it
back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, distinct_texts, majority, pick, scheme_type

LABELS = ["deadlock", "circular_wait", "race_condition", "benign"]


class ToolContention(SchemeBase):
    """Each contention of a run's agents for a shared resource classified."""

    annotation_type: Literal["tool_contention"]
    calls_key: str = Field("calls", min_length=1, description="the item field holding the run's tool calls (a list "
                                                              "of {agent, tool, start, end, resource}, in seconds)")
    agent_key: str = Field("agent", min_length=1, description="the call field naming its agent (else its role)")
    resource_key: str = Field("resource", min_length=1, description="the call field naming the resource it holds "
                                                                    "(else its lock)")
    contention_labels: list[str] = Field(LABELS, min_length=1, description="what a contention may be classified as")

    _distinct = field_validator("contention_labels")(distinct_texts)


def _seconds(value: Any) -> float:
    try:
        found = float(value or 0)
    except (TypeError, ValueError):
        return float("nan")  # as JavaScript's + reads a text that is not a number: it drops the call
    return found


def calls(scheme: ToolContention, record: Any) -> list[dict[str, Any]]:
    """The run's calls as Potato's page reads them: each its agent (else role, else "agent"), tool (else name),
    resource (else lock), start and end (the end else the start); a call ending before it starts is left out."""
    found = record.fields.get(scheme.calls_key) if record is not None else None
    read = []
    for call in found if isinstance(found, list) else []:
        call = call if isinstance(call, dict) else {}
        start = _seconds(call.get("start"))
        end = _seconds(call.get("end") or call.get("start"))
        if end >= start:
            read.append({"agent": str(call.get(scheme.agent_key) or call.get("role") or "agent"),
                         "tool": str(call.get("tool") or call.get("name") or "tool"),
                         "resource": str(call.get(scheme.resource_key) or call.get("lock") or ""),
                         "start": start, "end": end})
    return read


def contentions(scheme: ToolContention, record: Any) -> list[dict[str, Any]]:
    """Each overlap in time of two agents' calls on the same resource, in the order they begin, as Potato finds
    them (one agent's own calls overlapping are no contention)."""
    read = calls(scheme, record)
    found = []
    for place, one in enumerate(read):
        for other in read[place + 1:]:
            if not one["resource"] or one["resource"] != other["resource"] or one["agent"] == other["agent"]:
                continue
            start, end = max(one["start"], other["start"]), min(one["end"], other["end"])
            if end > start:
                found.append({"start": start, "end": end, "resource": one["resource"],
                              "pair": f"{one['agent']}:{one['tool']} ⟷ {other['agent']}:{other['tool']}"})
    return sorted(found, key=lambda contention: contention["start"])


def _share(part: float, whole: float, least: float) -> str:
    return f"{max(least, 100 * part / whole):.3f}%"


@scheme_type
class ToolContentionType(SchemeType):
    name = "tool_contention"
    settings = ToolContention
    aggregators = ("majority", "none")
    potato_keys = ("calls_key", "agent_key", "resource_key", "contention_labels")
    potato_json = True
    potato_order = ("contentions",)
    page = {"value": "checked"}  # answered once a contention is classified
    script = "designs/retract.js"
    style = "designs/tool_contention.css"

    def item_problem(self, scheme, record):
        if not calls(scheme, record):
            return f"item {record.id!r} has no tool calls under {scheme.calls_key!r} to draw"
        return None

    def widget_context(self, scheme, record, field, keys):
        read, found = calls(scheme, record), contentions(scheme, record)
        whole = max((call["end"] for call in read), default=0) or 1
        lanes: dict[str, list[dict[str, Any]]] = {}
        for call in read:
            lanes.setdefault(call["agent"], []).append({
                **call, "left": _share(call["start"], whole, 0), "width": _share(call["end"] - call["start"], whole, 2),
                "when": f"{call['start']:g}–{call['end']:g}s"})
        timed = any(call["end"] > call["start"] for call in read)
        return {"lanes": list(lanes.items()), "untimed": not timed,
                "contentions": [{**contention, "index": index, "left": _share(contention["start"], whole, 0),
                                 "width": _share(contention["end"] - contention["start"], whole, 1),
                                 "when": f"{contention['start']:.1f}–{contention['end']:.1f}s"}
                                for index, contention in enumerate(found)],
                "labels": [(label, label.replace("_", " ")) for label in scheme.contention_labels]}

    def read(self, scheme, fields, record):
        found = contentions(scheme, record)
        given = {str(index): pick(fields.get(str(index)), scheme.contention_labels, "contention labels")
                 for index in range(len(found)) if fields.get(str(index))}
        if scheme.required and len(given) < len(found):
            raise AnswerProblem(f"{len(given)} of {len(found)} contentions classified; classify every one")
        return {"contentions": given} if given else None

    def answer_schema(self, scheme):
        return {"type": "object", "required": ["contentions"], "additionalProperties": False,
                "properties": {"contentions": {"type": "object", "minProperties": 1,
                                               "propertyNames": {"pattern": "^(0|[1-9][0-9]*)$"},
                                               "additionalProperties": {"enum": scheme.contention_labels}}}}

    def form_fields(self, scheme, value, record=None):
        given = value.get("contentions") if isinstance(value, dict) else None
        return {str(index): str(label) for index, label in given.items()} if isinstance(given, dict) else {}

    def units(self, scheme, value, text=""):
        return dict(value["contentions"])  # agreement per contention

    def combine(self, scheme, values):
        indexes = sorted({index for value in values for index in value["contentions"]}, key=int)
        labels = {index: majority([value["contentions"][index] for value in values if index in value["contentions"]])
                  for index in indexes}
        return {"contentions": {index: label for index, label in labels.items() if label is not None}}

    def potato_ordered(self, scheme, value, record):
        # A JavaScript object lists keys that are whole numbers in numeric order, whatever order they were set in.
        return {"contentions": dict(sorted(value["contentions"].items(), key=lambda entry: int(entry[0])))}

    def told(self, scheme, record=None):
        listed = "" if record is None else " Contentions: " + "; ".join(
            f"{index}. {contention['resource']} {contention['start']:.1f}–{contention['end']:.1f}s "
            f"{contention['pair']}" for index, contention in enumerate(contentions(scheme, record))) + "."
        return (f"Classify each contention ({', '.join(scheme.contention_labels)}), as {{\"contentions\": {{index: "
                f"label}}}} with contentions numbered from 0.{listed}")

    def card_labels(self, scheme):
        return ", ".join(scheme.contention_labels) + " for each contention"
