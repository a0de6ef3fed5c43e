"""trajectory_eval: each step of an agent's trajectory judged (Potato's trajectory_eval, after TRAIL and
AgentRewardBench): correct, incorrect or partly correct, and for a step not correct its error type (from a taxonomy,
with subtypes), its severity and a rationale; the trajectory's score is the most (`max_score`) less each severity's
weight, given only once every step is judged and every wrong one has its severity. "<prefix>-<step from 0>" holds the
correctness, "-type" ("type::subtype"), "-severity" and "-rationale" the rest. A correctness picked again is taken
back (designs/retract.js), as Potato's second click takes it back; designs/trajectory_eval.js shows a step's error
fields only while it is not correct, and keeps the score line."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, field_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, Strict, majority, pick, scheme_type

CORRECTNESS = ["correct", "incorrect", "partially_correct"]
RIGHT = "correct"  # the judgement that takes nothing off and asks for no error, whatever the options (as Potato)
SAID = ("text", "content", "reasoning", "thought", "action_type")  # what a step says after its step_text_key


class ErrorType(Strict):
    """One kind of error a step may make, and its finer kinds."""

    name: str = Field(min_length=1)
    subtypes: list[str] = Field([], description="its finer kinds, one of which is chosen when there are any")


class Severity(Strict):
    """How bad an error is, and what it takes off the score."""

    name: str = Field(min_length=1)
    weight: int = Field(description="taken off the score (as its size: -5 and 5 take 5)")


class TrajectoryEval(SchemeBase):
    """Each step of a trajectory judged, a wrong one's error typed and weighed; the trajectory scored."""

    annotation_type: Literal["trajectory_eval"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the trajectory's steps")
    step_text_key: str = Field("action", min_length=1, description="the step field shown as what the step did")
    correctness_options: list[str] = Field(CORRECTNESS, min_length=2, description="how right a step may be "
                                                                                  "(\"correct\" asks for no error)")
    error_types: list[ErrorType] = Field([], description="the error taxonomy (a name, or {name, subtypes})")
    severities: list[Severity] = Field([Severity(name="minor", weight=-1), Severity(name="major", weight=-5),
                                        Severity(name="critical", weight=-10)], min_length=1)
    show_score: bool = Field(True, description="show the score as the steps are judged")
    max_score: int = Field(100, ge=1, description="the score of a trajectory without errors")

    @field_validator("error_types", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        # Potato's shorthand: a name alone, or {label, subtypes}.
        if not isinstance(value, list):
            return value
        return [{"name": entry} if isinstance(entry, str) else
                {"name": entry.get("name", entry.get("label")), "subtypes": entry.get("subtypes") or []}
                if isinstance(entry, dict) else entry for entry in value]


def steps(scheme: TrajectoryEval, record: Any) -> list[dict[str, str]]:
    """Each step's text and thought, as Potato's page shows them."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    shown = []
    for step in found if isinstance(found, list) else []:
        if isinstance(step, dict):
            text = next((step[key] for key in (scheme.step_text_key, *SAID) if step.get(key)), None)
            shown.append({"text": str(text) if text is not None else json.dumps(step, ensure_ascii=False),
                          "thought": str(step.get("thought") or "")})
        else:
            shown.append({"text": "" if step is None else str(step), "thought": ""})
    return shown


def error_choices(scheme: TrajectoryEval) -> list[str]:
    """The values the error-type list offers: a name, or "name::subtype" for each of its subtypes."""
    return [f"{kind.name}::{sub}" for kind in scheme.error_types for sub in kind.subtypes] + [
        kind.name for kind in scheme.error_types if not kind.subtypes]


def score(scheme: TrajectoryEval, judged: list[dict[str, Any]]) -> int | None:
    """The trajectory's score, None until every step is judged and every step not right has its severity."""
    if any(step["correctness"] is None or (step["correctness"] != RIGHT and not step.get("severity"))
           for step in judged):
        return None
    weights = {severity.name: abs(severity.weight) for severity in scheme.severities}
    return max(0, scheme.max_score - sum(weights[step["severity"]] for step in judged if step["correctness"] != RIGHT))


@scheme_type
class TrajectoryEvalType(SchemeType):
    name = "trajectory_eval"
    settings = TrajectoryEval
    aggregators = ("majority", "none")
    potato_keys = ("instructions", "steps_key", "step_text_key", "correctness_options", "error_types", "severities",
                   "show_score", "max_score")
    potato_json = True
    potato_order = ("steps", "step_index", "correctness", "error_type", "error_subtype", "severity", "rationale",
                    "score", "score_complete")
    page = {"value": "checked"}  # answered once a step is judged
    script = "designs/trajectory_eval.js"
    style = "designs/trajectory_eval.css"

    def scripts(self, scheme):
        return ["designs/retract.js", self.script]

    def item_problem(self, scheme, record):
        if not steps(scheme, record):
            return f"item {record.id!r} has no steps under {scheme.steps_key!r} to judge"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"steps": [{**step, "place": place} for place, step in enumerate(steps(scheme, record))],
                "options": [(option, option.replace("_", " ").title()) for option in scheme.correctness_options],
                "severities": [(level.name, f"{level.name} ({level.weight:+d})") for level in scheme.severities],
                "weights": json.dumps({level.name: abs(level.weight) for level in scheme.severities})}

    def read(self, scheme, fields, record):
        judged: list[dict[str, Any]] = []
        for place in range(len(steps(scheme, record))):
            correctness = fields.get(str(place)) or None
            step: dict[str, Any] = {"step_index": place, "correctness": correctness and pick(
                correctness, scheme.correctness_options, f"judgements of step {place + 1}")}
            if correctness and correctness != RIGHT:
                kind = fields.get(f"{place}-type")
                if kind:
                    name, _, sub = pick(kind, error_choices(scheme), f"error types of step {place + 1}").partition("::")
                    step.update(error_type=name, error_subtype=sub)
                severity = fields.get(f"{place}-severity")
                if severity:
                    step["severity"] = pick(severity, [level.name for level in scheme.severities],
                                            f"severities of step {place + 1}")
                rationale = fields.get(f"{place}-rationale", 2000)
                if rationale:
                    step["rationale"] = rationale
            judged.append(step)
        if all(step["correctness"] is None for step in judged):
            return None
        found = score(scheme, judged)
        if scheme.required and found is None:
            open_steps = [str(step["step_index"] + 1) for step in judged if step["correctness"] is None]
            raise AnswerProblem(f"judge step {', '.join(open_steps)}" if open_steps else
                                "choose a severity for every step that is not right")
        return {"steps": judged, "score": found, "score_complete": found is not None}

    def answer_schema(self, scheme):
        step = {"type": "object", "required": ["step_index", "correctness"], "additionalProperties": False,
                "properties": {"step_index": {"type": "integer", "minimum": 0},
                               "correctness": {"enum": [None, *scheme.correctness_options]},
                               "error_type": {"type": "string"}, "error_subtype": {"type": "string"},
                               "severity": {"enum": [level.name for level in scheme.severities]},
                               "rationale": {"type": "string", "maxLength": 2000}}}
        return {"type": "object", "required": ["steps", "score", "score_complete"], "additionalProperties": False,
                "properties": {"steps": {"type": "array", "minItems": 1, "items": step},
                               "score": {"type": ["integer", "null"], "minimum": 0},
                               "score_complete": {"type": "boolean"}}}

    def form_fields(self, scheme, value, record=None):
        fields = {}
        for step in (value.get("steps") if isinstance(value, dict) else None) or []:
            if not isinstance(step, dict) or not isinstance(step.get("step_index"), int):
                continue  # a model's answer may be anything
            place = step["step_index"]
            fields[str(place)] = str(step.get("correctness") or "")
            if step.get("error_type"):
                fields[f"{place}-type"] = step["error_type"] + (f"::{step['error_subtype']}"
                                                                if step.get("error_subtype") else "")
            fields[f"{place}-severity"] = str(step.get("severity") or "")
            fields[f"{place}-rationale"] = str(step.get("rationale") or "")
        return fields

    def units(self, scheme, value, text=""):
        return {step["step_index"]: step["correctness"] for step in value["steps"] if step["correctness"]}

    def combine(self, scheme, values):
        places = range(max(len(value["steps"]) for value in values))
        judged = [{"step_index": place, "correctness": majority([value["steps"][place]["correctness"]
                                                                 for value in values if place < len(value["steps"])
                                                                 and value["steps"][place]["correctness"]])}
                  for place in places]
        return {"steps": judged, "score": None, "score_complete": False}


    def told(self, scheme, record=None):
        listed = "" if record is None else " Steps: " + "; ".join(
            f"{place}. {step['text']}" for place, step in enumerate(steps(scheme, record))) + "."
        kinds = f" Error types: {', '.join(error_choices(scheme))}." if scheme.error_types else ""
        return (f"Judge each step ({', '.join(scheme.correctness_options)}); for a step not "
                f"{RIGHT}, give its error_type, severity "
                f"({', '.join(level.name for level in scheme.severities)}) and rationale, as "
                f"{{\"steps\": [{{step_index, correctness, error_type, severity, rationale}}]}}.{kinds}{listed}")

    def card_labels(self, scheme):
        return ", ".join(scheme.correctness_options) + " for each step, with a wrong step's error and severity"
