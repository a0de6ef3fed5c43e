"""tool_call_review: each tool call of an agent's trace judged (Potato's tool_call_review, after function-calling
benchmarks such as BFCL): a card per call, its tool and arguments, a verdict (the right tool with the right
arguments, the wrong tool, the wrong arguments) and notes. "<prefix>-<call from 0>" holds the verdict,
"<prefix>-<call>-notes" the notes; any call may be left. A verdict picked again is taken back (designs/retract.js),
as Potato's second click takes it back."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, field_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, distinct_texts, majority, pick, scheme_type

VERDICTS = ["correct", "wrong_tool", "wrong_args"]


class ToolCallReview(SchemeBase):
    """Each tool call of a trace given a verdict, and notes."""

    annotation_type: Literal["tool_call_review"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the trace's steps (a list)")
    verdict_options: list[str] = Field(VERDICTS, min_length=1, description="the verdicts a call may be given")

    _distinct = field_validator("verdict_options")(distinct_texts)


def calls(scheme: ToolCallReview, record: Any) -> list[dict[str, Any]]:
    """The trace's tool calls as Potato's page finds them: each step's tool_calls (or tool_call), else a step that
    is a call itself (its `tool`, or action_type tool); each call's step, tool and arguments."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    listed: list[dict[str, Any]] = []
    for place, step in enumerate(found if isinstance(found, list) else []):
        if not isinstance(step, dict):
            continue
        made = step.get("tool_calls") or ([step["tool_call"]] if step.get("tool_call") else None)
        if isinstance(made, list) and made:
            listed += [{"step": place, "tool": str(call.get("name") or call.get("tool") or "tool"),
                        "args": call.get("args") or call.get("arguments") or call.get("input") or {}}
                       for call in made if isinstance(call, dict)]
        elif step.get("tool") or step.get("action_type") == "tool":
            listed.append({"step": place, "tool": str(step.get("tool") or step.get("name") or "tool"),
                           "args": step.get("args") or step.get("arguments") or step.get("input") or {}})
    return listed


def shown(args: Any) -> str:
    """A call's arguments as Potato's page prints them: a text as it is, else JSON indented by two, its keys in
    alphabetical order (as Potato's server hands the item to the page)."""
    return args if isinstance(args, str) else json.dumps(args, indent=2, ensure_ascii=False, sort_keys=True)


@scheme_type
class ToolCallReviewType(SchemeType):
    name = "tool_call_review"
    settings = ToolCallReview
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "steps_key", "verdict_options")
    potato_json = True
    potato_order = ("index", "step", "tool", "verdict", "notes")
    style = "designs/tool_call_review.css"
    script = "designs/retract.js"

    def item_problem(self, scheme, record):
        if not calls(scheme, record):
            return f"item {record.id!r} has no tool calls in its trace under {scheme.steps_key!r} to review"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"calls": [{**call, "index": index, "args": shown(call["args"]), "number": call["step"] + 1}
                          for index, call in enumerate(calls(scheme, record))],
                "verdicts": [(option, option.replace("_", " ")) for option in scheme.verdict_options]}

    def read(self, scheme, fields, record):
        reviewed = []
        for index, call in enumerate(calls(scheme, record)):
            verdict, notes = fields.get(str(index)), fields.get(f"{index}-notes", 1000)
            if verdict or notes:
                reviewed.append({"index": index, "step": call["step"], "tool": call["tool"],
                                 "verdict": pick(verdict, scheme.verdict_options, "verdicts") if verdict else "",
                                 "notes": notes})
        if scheme.required and len({entry["index"] for entry in reviewed if entry["verdict"]}) < len(
                calls(scheme, record)):
            raise AnswerProblem("give every tool call a verdict")
        return reviewed or None

    def answer_schema(self, scheme):
        return {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["index", "step", "tool", "verdict", "notes"], "additionalProperties": False,
            "properties": {"index": {"type": "integer", "minimum": 0}, "step": {"type": "integer", "minimum": 0},
                           "tool": {"type": "string"}, "verdict": {"enum": ["", *scheme.verdict_options]},
                           "notes": {"type": "string", "maxLength": 1000}}}}

    def form_fields(self, scheme, value, record=None):
        fields = {}
        for entry in value if isinstance(value, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("index"), int):
                fields[str(entry["index"])] = str(entry.get("verdict") or "")
                fields[f"{entry['index']}-notes"] = str(entry.get("notes") or "")
        return fields

    def units(self, scheme, value, text=""):
        return {entry["index"]: entry["verdict"] for entry in value if entry["verdict"]}  # agreement per call

    def combine(self, scheme, values):
        judged: dict[int, list[dict[str, Any]]] = {}
        for value in values:
            for entry in value:
                if entry["verdict"]:
                    judged.setdefault(entry["index"], []).append(entry)
        return [{**entries[0], "verdict": majority([entry["verdict"] for entry in entries]) or "", "notes": ""}
                for _, entries in sorted(judged.items())]


    def told(self, scheme, record=None):
        listed = "" if record is None else " Calls: " + "; ".join(
            f"{index}. {call['tool']}({json.dumps(call['args'], ensure_ascii=False)}) at step {call['step']}"
            for index, call in enumerate(calls(scheme, record))) + "."
        return (f"Give each tool call a verdict ({', '.join(scheme.verdict_options)}) and any notes, as a list of "
                f"{{index, step, tool, verdict, notes}}.{listed}")

    def card_labels(self, scheme):
        return ", ".join(scheme.verdict_options) + " for each tool call"
