"""trajectory_edit: an agent's steps corrected (Potato's trajectory_edit, after Labelbox's trajectory editor): each
step a card showing its `editable_fields` (its `step_text_key`, "action" unless given) as they were and a box
starting as them to correct, the words and characters changed and the words taken out and put in shown as the
annotator types (designs/trajectory_edit.js), a reason asked for each edit with `require_reason_on_edit`, a Reset
button; the run's final answer too with `edit_final_answer`. "<prefix>-<step>-<field>" holds a corrected text,
"-touched" whether the annotator typed in it (Potato keeps a box typed in and put back as it was, not edited),
"-reason" its reason; "<prefix>-final" the final answer. Kept as Potato keeps it: each box typed in with its
original, its correction and its edit distances; the steps edited and the characters changed in all."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, edit_distances, scheme_type


class TrajectoryEdit(SchemeBase):
    """An agent's steps, and its final answer, corrected."""

    annotation_type: Literal["trajectory_edit"]
    steps_key: str = Field("steps", min_length=1, description="the item field holding the trace's steps (a list)")
    step_text_key: str = Field("action", min_length=1, description="the step field corrected unless editable_fields "
                                                                   "says otherwise (a step that is a text is it)")
    editable_fields: list[str] = Field([], description="the step fields corrected, each in a box of its own "
                                                       "(step_text_key unless given)")
    show_diff: bool = Field(True, description="show the words taken out and put in as the annotator types")
    show_edit_distance: bool = Field(True, description="show the words and characters changed")
    allow_reset: bool = Field(True, description="a Reset button puts a box back as it was")
    require_reason_on_edit: bool = Field(False, description="each edit needs a reason")
    edit_final_answer: bool = Field(False, description="the item's final answer is corrected too")
    final_answer_key: str = Field("final_answer", min_length=1, description="the item field holding the final answer")

    @property
    def fields(self) -> list[str]:
        return self.editable_fields or [self.step_text_key]


def _text(value: Any) -> str:
    # A field that is not text is shown and corrected as its JSON, as Potato's page writes it (keys in order).
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                                                           sort_keys=True)


def boxes(scheme: TrajectoryEdit, record: Any) -> list[dict[str, Any]]:
    """Each step as Potato's page shows it: its number, its thought (unless corrected), and a box for each editable
    field the step has ({field, number: its place in editable_fields, original})."""
    found = record.fields.get(scheme.steps_key) if record is not None else None
    shown = []
    for place, step in enumerate(found if isinstance(found, list) else []):
        corrected = []
        for number, field in enumerate(scheme.fields):
            if isinstance(step, str):
                original = step if field == scheme.step_text_key else ""
            else:
                value = step.get(field) if isinstance(step, dict) else None
                original = "" if value is None else _text(value)
            if original or (isinstance(step, dict) and field in step):
                corrected.append({"field": field, "number": number, "original": original,
                                  "shown": field[:1].upper() + field[1:]})
        thought = step.get("thought") if isinstance(step, dict) and "thought" not in scheme.fields else None
        shown.append({"index": place, "thought": _text(thought) if thought else "", "boxes": corrected})
    return shown


def final(scheme: TrajectoryEdit, record: Any) -> str | None:
    value = record.fields.get(scheme.final_answer_key) if record is not None and scheme.edit_final_answer else None
    return None if value is None else _text(value)


def measured(original: str, edited: str) -> dict[str, Any]:
    """A correction as Potato's page measures it: changed at all, characters and words (split at spaces) changed."""
    return {"original_text": original, "edited_text": edited, "edited": edited != original,
            **edit_distances(original, edited)}


def _typed(fields: Any, part: str) -> str:
    # As typed (Fields.get strips); a browser sends a box's line breaks as CRLF.
    value = fields.raw.get(f"{fields.prefix}-{part}")
    return "" if value is None else str(value).replace("\r\n", "\n")


@scheme_type
class TrajectoryEditType(SchemeType):
    name = "trajectory_edit"
    settings = TrajectoryEdit
    aggregators = ("none",)
    level = None  # corrections are kept whole, not compared
    potato_keys = ("steps_key", "step_text_key", "editable_fields", "show_diff", "show_edit_distance", "allow_reset",
                   "require_reason_on_edit", "edit_final_answer", "final_answer_key")
    potato_json = True
    potato_order = ("steps", "final_answer", "n_steps_edited", "total_edit_distance", "step_index", "field",
                    "original_text", "edited_text", "edited", "edit_distance_chars", "edit_distance_words", "reason")
    style = "designs/trajectory_edit.css"
    script = "designs/trajectory_edit.js"

    def item_problem(self, scheme, record):
        if not any(step["boxes"] for step in boxes(scheme, record)) and final(scheme, record) is None:
            return (f"item {record.id!r} has no step with {', '.join(scheme.fields)} under {scheme.steps_key!r} to "
                    f"correct")
        return None

    def widget_context(self, scheme, record, field, keys):
        steps = boxes(scheme, record)
        for step in steps:
            step["number"] = step["index"] + 1
            for box in step["boxes"]:
                box.update(name=f"{field}-{step['index']}-{box['number']}", step=step["number"],
                           reason=scheme.require_reason_on_edit)
        answer = final(scheme, record)
        return {"steps": steps, "final": answer is not None and {"name": f"{field}-final", "shown": "Final answer",
                                                                  "original": answer}}

    def read(self, scheme, fields, record):
        entries = []
        for step in boxes(scheme, record):
            for box in step["boxes"]:
                part = f"{step['index']}-{box['number']}"
                if fields.get(f"{part}-touched"):
                    entries.append({"step_index": step["index"], "field": box["field"],
                                    **measured(box["original"], _typed(fields, part)[:20000]),
                                    "reason": _typed(fields, f"{part}-reason")[:1000]
                                    if scheme.require_reason_on_edit else ""})
        entries.sort(key=lambda entry: (entry["step_index"], entry["field"]))
        original = final(scheme, record)
        answer = measured(original, _typed(fields, "final")[:20000]) if original is not None and fields.get(
            "final-touched") else None
        if not entries and answer is None:
            return None
        unexplained = sorted({entry["step_index"] + 1 for entry in entries
                              if entry["edited"] and scheme.require_reason_on_edit and not entry["reason"].strip()})
        if unexplained and scheme.required:  # as Potato's page, which holds only a required scheme to it
            raise AnswerProblem(f"no reason given for the edit on step {', '.join(map(str, unexplained))}")
        edited = [entry for entry in entries if entry["edited"]] + ([answer] if answer and answer["edited"] else [])
        return {"steps": entries, "final_answer": answer, "n_steps_edited": len(edited),
                "total_edit_distance": sum(entry["edit_distance_chars"] for entry in edited)}

    def answer_schema(self, scheme):
        counts = {"type": "integer", "minimum": 0}
        correction = {"original_text": {"type": "string"}, "edited_text": {"type": "string"},
                      "edited": {"type": "boolean"}, "edit_distance_chars": counts, "edit_distance_words": counts}
        entry = {"type": "object", "additionalProperties": False,
                 "required": ["step_index", "field", *correction, "reason"],
                 "properties": {"step_index": counts, "field": {"enum": scheme.fields}, **correction,
                                "reason": {"type": "string", "maxLength": 1000}}}
        answer = {"type": "object", "additionalProperties": False, "required": list(correction),
                  "properties": correction}
        return {"type": "object", "additionalProperties": False,
                "required": ["steps", "final_answer", "n_steps_edited", "total_edit_distance"],
                "properties": {"steps": {"type": "array", "items": entry},
                               "final_answer": {"anyOf": [answer, {"type": "null"}]},
                               "n_steps_edited": counts, "total_edit_distance": counts}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict):
            return {}
        numbers = {field: number for number, field in enumerate(scheme.fields)}
        fields = {}
        for entry in value.get("steps") or []:
            if isinstance(entry, dict) and entry.get("field") in numbers:
                part = f"{entry.get('step_index')}-{numbers[entry['field']]}"
                fields.update({part: str(entry.get("edited_text", "")), f"{part}-touched": "1",
                               f"{part}-reason": str(entry.get("reason") or "")})
        if isinstance(value.get("final_answer"), dict):
            fields.update({"final": str(value["final_answer"].get("edited_text", "")), "final-touched": "1"})
        fields[""] = str(len(fields))  # the page's count of boxes typed in (answered once there is one)
        return fields

    def told(self, scheme, record=None):
        listed = "" if record is None else " Steps: " + "; ".join(
            f"{step['index']}. " + ", ".join(f"{box['field']}: {box['original']}" for box in step["boxes"])
            for step in boxes(scheme, record) if step["boxes"]) + "."
        return (f"Correct the agent's steps ({', '.join(scheme.fields)}): for each you change, an entry of steps "
                f"{{step_index from 0, field, original_text, edited_text, edited, edit_distance_chars, "
                f"edit_distance_words, reason}}"
                + (" with the reason for the edit" if scheme.require_reason_on_edit else "") + "." + listed)

    def card_labels(self, scheme):
        return f"corrected {', '.join(scheme.fields)}" + (", final answer" if scheme.edit_final_answer else "")
