"""multirate: one label (a column) for each of the scheme's options (the rows): "<prefix>-<row number>". The rows
are the scheme's `options`, or each item's own list (`options_from_data`, as Potato's: an agent trace's steps)."""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    Label,
    SchemeBase,
    SchemeType,
    labels_in_any_form,
    majority,
    one_of,
    pick,
    potato_text,
    scheme_type,
)
from designs.schemes.radio import RadioType


class Multirate(SchemeBase):
    """A grid: each option (row) gets one label (column)."""

    annotation_type: Literal["multirate"]
    options: list[str] = Field(default_factory=list, description="the rows rated")
    options_from_data: str | None = Field(None, description="instead of options, an item field holding the item's "
                                                            "own rows: a list of texts, or of objects")
    options_text_keys: list[str] = Field(["label", "name"], description="where a row that is an object keeps its "
                                                                          "text: the first of these it has (else "
                                                                          "the object as JSON)")
    row_prefix: str = Field("", description="each of an item's own rows shown and kept numbered after it "
                                            "(\"Step\": \"Step 1: …\"), so that two rows with one text stay two")
    cascade: bool = Field(False, description="the last column picked on a row is picked on every later row and the "
                                             "first on every earlier one (Potato's process_reward first_error)")
    labels: list[Label] = Field(min_length=2, description="the columns: one per row is picked",
                               json_schema_extra=labels_in_any_form)

    @model_validator(mode="after")
    def _rows(self) -> Multirate:
        if bool(self.options) == bool(self.options_from_data):
            raise ValueError("give the rows as options, or as an item field (options_from_data), one of them")
        return self


def rows(scheme: Multirate, record: Any) -> list[str]:
    """The rows of the grid on `record`: the scheme's options, or the item's own list, each entry a text or an
    object's text under the first of options_text_keys it has (its label, else its name, as Potato's multirate reads
    them), numbered after row_prefix when there is one; [] when the item has none."""
    if not scheme.options_from_data:
        return scheme.options
    found = record.fields.get(scheme.options_from_data) if record is not None else None
    if not isinstance(found, list):
        return []
    texts = []
    for number, entry in enumerate(found, 1):
        text = str(entry)
        if isinstance(entry, dict):
            text = next((str(entry[key]) for key in scheme.options_text_keys if entry.get(key) not in (None, "")),
                        json.dumps(entry, ensure_ascii=False))
        texts.append(f"{scheme.row_prefix} {number}: {text}" if scheme.row_prefix else text)
    return texts


PAIR = " – "  # between the words of a semantic differential's row
# A grid's row in Label Studio: one single Choices a row, named after the scheme and the row's number.
ROW = re.compile(r"(.+)_([1-9][0-9]*)$")
ROW_KEYS = {"annotation_type", "name", "description", "labels", "horizontal", "sequential_key_binding",
            "label_requirement"}  # what the import reads of a single Choices with nothing more

@scheme_type
class MultirateType(SchemeType):
    name = "multirate"
    settings = Multirate
    aggregators = ("majority", "none")
    potato_keys = ("options", "options_from_data", "labels")
    potato_aliases = ("semantic_differential", "rubric_eval", "process_reward")
    page = {"value": "every"}
    asked_once = True

    def potato_answer(self, scheme, value, record):
        return {"labels": {option: potato_text(rating) for option, rating in value.items()}}

    def potato_fields(self, scheme, saved, record):
        return self.form_fields(scheme, saved.get("labels") or {}, record)

    def form_fields(self, scheme, value, record=None):
        return {str(place): str(value[row]) for place, row in enumerate(rows(scheme, record), 1)
                if isinstance(value, dict) and row in value}

    def item_problem(self, scheme, record):
        if scheme.options_from_data and not rows(scheme, record):
            return f"item {record.id!r} has no list of rows under {scheme.options_from_data!r} to rate"
        if scheme.options_from_data and len(set(rows(scheme, record))) < len(rows(scheme, record)):
            return f"item {record.id!r} has the same row twice under {scheme.options_from_data!r}"
        return None

    def widget_context(self, scheme, record, field, keys):
        return {"rows": rows(scheme, record)}

    def read(self, scheme, fields, record):
        labels = [label.name for label in scheme.labels]
        rated = {row: fields.get(str(number)) for number, row in enumerate(rows(scheme, record), 1)}
        if not any(rated.values()):
            return None
        unrated = [row for row, value in rated.items() if not value]
        if unrated:
            raise AnswerProblem(f"rate every row ({unrated[0]!r} is not rated yet)")
        return {row: pick(value, labels, "labels") for row, value in rated.items()}

    def answer_schema(self, scheme):
        labels = one_of([label.name for label in scheme.labels])
        if scheme.options_from_data:  # the rows are the item's: each one rated (read checks them against it)
            return {"type": "object", "additionalProperties": labels, "minProperties": 1}
        return {"type": "object", "properties": dict.fromkeys(scheme.options, labels),
                "required": list(scheme.options), "additionalProperties": False}

    def units(self, scheme, value, text=""):
        return dict(value)

    def combine(self, scheme, values):
        # The rows as the answers name them (an item's own rows are the same in each answer to it).
        named = scheme.options or list(dict.fromkeys(row for value in values for row in value))
        return {row: majority([value.get(row) for value in values]) for row in named}

    def from_potato(self, converted, importer):
        if isinstance(converted.get("options"), list):
            converted["options"] = [importer.option(option) for option in converted["options"]]
        return [converted]

    def scripts(self, scheme):
        return ["designs/cascade.js"] if scheme.cascade else []

    def told(self, scheme, record=None):
        found = rows(scheme, record)
        return f"Rows (give each one of the options): {'; '.join(found)}." if found else ""

    def labelstudio_control(self, scheme, to_name):
        # Label Studio has no grid: a single Choices a row, the row its header (smaller than the question's). An
        # item's own rows are not the config's (its controls are the same for every task), so such a grid has none.
        if scheme.options_from_data:
            return ""
        choices = "".join(f"<Choice value={quoteattr(label.name)}/>" for label in scheme.labels)
        required = ' required="true"' if scheme.required else ""
        return "\n  ".join(f"<Header value={quoteattr(row)} size=\"6\"/><Choices name={quoteattr(name)} "
                            f"toName={quoteattr(to_name)} choice=\"single\" showInline=\"true\"{required}>{choices}"
                            f"</Choices>" for name, row in zip(self.labelstudio_names(scheme), scheme.options,
                                                               strict=True))

    def labelstudio_names(self, scheme):
        return [f"{scheme.name}_{number}" for number in range(1, len(scheme.options) + 1)]

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"from_name": name, "type": "choices", "value": {"choices": [value[row]]}}
                for name, row in zip(self.labelstudio_names(scheme), scheme.options, strict=True) if row in value]

    def from_labelstudio_results(self, scheme, results, regions):
        rows = dict(zip(self.labelstudio_names(scheme), scheme.options, strict=True))
        return {rows[result["from_name"]]: (result["value"].get("choices") or [None])[0] for result in results}

    def labelstudio_gather(self, schemes, importer):
        """Single choices named <name>_1 … <name>_N (N ≥ 2) one after another, each asked by its own header and
        offering the same choices, as the export above writes a grid: one grid again, its rows the headers and its
        question the header just above the first row's. Left apart where <name> is taken, two rows read alike or
        another control's condition names a row."""
        taken = {scheme["name"] for scheme in schemes}
        place = 0
        while place < len(schemes):
            run = self._rows(schemes[place:], importer.conditioned)
            base = ROW.match(schemes[place]["name"]).group(1) if len(run) > 1 else ""
            if len(run) < 2 or base in taken or len({row["description"] for row in run}) < len(run):
                place += 1
                continue
            line, question = importer.header_above(run[0]["name"])
            grid = {"annotation_type": self.name, "name": base, **({"description": question} if question else {}),
                    "options": [row["description"] for row in run], "labels": run[0]["labels"],
                    **({"label_requirement": run[0]["label_requirement"]} if "label_requirement" in run[0] else {})}
            schemes[place:place + len(run)] = [grid]
            importer.put_together(base, [row["name"] for row in run])
            importer.notes.append(f"<Choices> {run[0]['name']} … {run[-1]['name']} (line {line}): the rows of "
                                  f"one grid, {base!r}, as this platform's export writes one")
            place += 1

    @staticmethod
    def _rows(schemes, conditioned):
        """The grid's rows starting the list: single choices named <name>_1, <name>_2, … with a header each, nothing
        else of their own, the same choices and requirement, and no condition naming them."""
        def shared(scheme):
            return ROW.match(scheme["name"]).group(1), scheme["labels"], scheme.get("label_requirement")

        run: list[dict[str, Any]] = []
        for scheme in schemes:
            found = ROW.match(scheme["name"])
            row = (found and int(found.group(2)) == len(run) + 1 and scheme["annotation_type"] == RadioType.name
                   and set(scheme) <= ROW_KEYS and scheme.get("description") and scheme["name"] not in conditioned)
            if not row or (run and shared(scheme) != shared(run[0])):
                break
            run.append(scheme)
        return run

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        if alias == "rubric_eval":  # each criterion's point under its name, as a grid's rows are kept
            return self.potato_answer(scheme, value, record)
        if alias == "process_reward":  # each step's reward by its place, as Potato's page keeps them
            steps = [{"index": place, "reward": int(value[row]), "source": "human", "verified": True,
                      "ai_reward": None, "ai_reasoning": "", "confidence": None}
                     for place, row in enumerate(rows(scheme, record))]
            mode = "first_error" if scheme.cascade else "per_step"
            return {"labels": {scheme.name: json.dumps({"steps": steps, "mode": mode}, separators=(",", ":"))}}
        # Potato's semantic differential names each row by its two words joined by "__", the point as its value.
        return {"labels": {option.replace(PAIR, "__", 1): potato_text(point) for option, point in value.items()}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        labels = saved.get("labels") or {}
        if alias == "process_reward":  # each step's reward by its place
            found = labels.get(scheme.name)
            steps = json.loads(found)["steps"] if found else []
            grid = rows(scheme, record)
            return self.form_fields(scheme, {grid[step["index"]]: step["reward"] for step in steps
                                             if step.get("reward") is not None}, record)
        if alias == "semantic_differential":  # a row is its two words joined by "__"
            labels = {option.replace("__", PAIR, 1): point for option, point in labels.items()}
        return self.form_fields(scheme, labels, record)

    def potato_alias(self, scheme, importer):
        if scheme.get("annotation_type") == "rubric_eval":
            return self._rubric(scheme)
        if scheme.get("annotation_type") == "process_reward":
            return _process_reward(scheme)
        # A semantic differential: each pair of opposite words a row, the scale's points the columns.
        pairs = [pair for pair in _listed(scheme, "pairs") if isinstance(pair, list | tuple) and len(pair) == 2]
        points = scheme.get("scale_points", 7)
        size = points if isinstance(points, int) and 2 <= points <= 11 else 7
        return ({"options": [f"{left}{PAIR}{right}" for left, right in pairs],
                 "labels": [str(point) for point in range(1, size + 1)]},
                f"a semantic differential, run as a grid: each pair of words a row, points 1 to {size} its columns "
                f"(1 the left word)")

    def _rubric(self, scheme):
        # A rubric (MT-Bench style): each criterion a row (an Overall row with show_overall), the scale's points the
        # columns, named by their number and shown with their scale label, as Potato 2.12.1 draws and stores them.
        points = scheme.get("scale_points", 5)
        size = points if isinstance(points, int) and 2 <= points <= 11 else 5
        shown = [str(label) for label in _listed(scheme, "scale_labels") or
                 ["Poor", "Below Average", "Average", "Good", "Excellent"][:size]][:size]
        shown += [str(number) for number in range(len(shown) + 1, size + 1)]
        criteria = [str(criterion.get("name", "")) if isinstance(criterion, dict) else str(criterion)
                    for criterion in _listed(scheme, "criteria")]
        described = any(isinstance(criterion, dict) and criterion.get("description")
                        for criterion in _listed(scheme, "criteria"))
        return ({"options": criteria + (["overall"] if scheme.get("show_overall") else []),
                 "labels": [{"name": str(number), "description": f"{label} ({number})"}
                            for number, label in enumerate(shown, 1)]},
                f"a rubric, run as a grid: each criterion a row, points 1 to {size} its columns"
                + ("; the criteria's descriptions are not shown" if described else ""))


def _process_reward(scheme: dict) -> tuple[dict, str]:
    """Potato's process_reward (per-step rewards for training a process reward model): each step of the item's
    trace a row, Correct (1), Neutral (0, per_step with allow_neutral) and Wrong (-1) its columns, as Potato 2.12.1
    names them; first_error (Potato's default) cascades a Wrong to every later step and a Correct to every earlier
    one."""
    mode = scheme.get("mode", "first_error")
    if mode not in ("first_error", "per_step"):
        raise ValueError(f"mode is {mode!r}; write first_error or per_step")
    said = {"correct": "Correct", "neutral": "Neutral", "incorrect": "Wrong",
            **{key: str(value) for key, value in (scheme.get("reward_labels") or {}).items()}}
    neutral = bool(scheme.get("allow_neutral")) and mode == "per_step"
    labels = [{"name": "1", "description": f"✓ {said['correct']}"},
              *([{"name": "0", "description": f"○ {said['neutral']}"}] if neutral else []),
              {"name": "-1", "description": f"✗ {said['incorrect']}"}]
    text_key = str(scheme.get("step_text_key", "action"))
    left = [key for key in ("ai_prelabel", "inline_with_trace", "require_verification") if scheme.get(key)]
    return ({"options_from_data": str(scheme.get("steps_key", "steps")), "labels": labels, "row_prefix": "Step",
             "options_text_keys": list(dict.fromkeys([text_key, "text", "content", "reasoning", "thought",
                                                      "action"])), "cascade": mode == "first_error"},
            f"a process reward ({mode}), run as a grid: each step of the item's trace a row, "
            + "/".join(label["description"][2:] for label in labels) + " its columns"
            + (", a Wrong picking Wrong on every later step and Correct on every earlier one" if mode == "first_error"
               else "")
            + (f"; not run: {', '.join(left)}" if left else ""))


def _listed(scheme: dict[str, Any], key: str) -> list[Any]:
    """A Potato scheme's list under `key` ([] when it gives none, or something else: the rows say what is missing)."""
    found = scheme.get(key)
    return found if isinstance(found, list) else []
