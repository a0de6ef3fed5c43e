"""constant_sum: a fixed number of points shared out over the scheme's labels (Potato's constant_sum; its
soft_label, a distribution over labels, is one with sliders that start evenly spread). Each label's points are
"<prefix>-<label number>"; designs/points.js keeps the share within the total as the annotator types or slides."""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    LabelledScheme,
    SchemeType,
    number,
    potato_json,
    potato_text,
    scheme_type,
)
from designs.schemes.number import NumberType
from designs.schemes.slider import SliderType


class ConstantSum(LabelledScheme):
    """Points shared out over the labels, all of them: a label's points say how much of it there is."""

    annotation_type: Literal["constant_sum"]
    total_points: int = Field(100, ge=1, le=10_000, description="the points to share out, every one of them")
    min_per_item: int = Field(0, ge=0, description="the fewest points a label may get")
    input_type: Literal["number", "slider"] = Field("number", description="a box to type each label's points "
                                                                          "in, or a slider")
    spread: bool = Field(False, description="sliders start evenly spread, and moving one moves the others in "
                                            "proportion so the total holds (Potato's soft_label)")

    @model_validator(mode="after")
    def _room(self) -> ConstantSum:
        if self.min_per_item * len(self.labels) > self.total_points:
            raise ValueError(f"min_per_item {self.min_per_item} for {len(self.labels)} labels is more than "
                             f"total_points {self.total_points}")
        if self.spread and self.input_type != "slider":
            raise ValueError("spread needs input_type: slider")
        return self


# How the export says a share's question in Label Studio, and how the import knows one: "<question> (share out all
# <total> points)" above a Number a label, named <name>_1, <name>_2, … each under its label.
SHARE = re.compile(r"^(.*?) ?\(share out all (\d+) points\)$", re.S)
PART = re.compile(r"(.+)_([1-9][0-9]*)$")
PART_KEYS = {"annotation_type", "name", "description", "min", "max", "step", "min_value", "max_value",
             "label_requirement"}


@scheme_type
class ConstantSumType(SchemeType):
    name = "constant_sum"
    settings = ConstantSum
    aggregators = ("mean", "median", "none")
    potato_keys = ("labels", "total_points", "min_per_item", "input_type")
    potato_aliases = ("soft_label", "belief_elicitation")
    level = "interval"  # per label: its points
    page = {"value": "texts"}
    script = "designs/points.js"

    def form_fields(self, scheme, value, record=None):
        return {str(place): str(value[label.name]) for place, label in enumerate(scheme.labels, 1)
                if isinstance(value, dict) and label.name in value}

    def read(self, scheme, fields, record):
        given = {}
        for place, label in enumerate(scheme.labels, 1):
            text = fields.get(str(place))
            if not text:
                continue
            points = number(text, f"{label.name}'s points")
            if points != int(points) or not scheme.min_per_item <= points <= scheme.total_points:
                raise AnswerProblem(f"{label.name}: give a whole number of points from {scheme.min_per_item} to "
                                    f"{scheme.total_points}")
            given[label.name] = int(points)
        if not given:
            return None
        shared = sum(given.values())
        if shared != scheme.total_points:
            left = scheme.total_points - shared
            raise AnswerProblem(f"share out all {scheme.total_points} points: "
                                + (f"{left} are left" if left > 0 else f"{-left} too many are given"))
        return given

    def answer_schema(self, scheme):
        points = {"type": "integer", "minimum": scheme.min_per_item, "maximum": scheme.total_points}
        # A label left empty has no points; the points given add up to total_points (read checks it).
        return {"type": "object", "properties": {label.name: points for label in scheme.labels},
                "additionalProperties": False, "minProperties": 1}

    def units(self, scheme, value, text=""):
        # Agreement per label: its points (a label left empty has none).
        return {label.name: value.get(label.name, 0) for label in scheme.labels}

    def start(self, scheme) -> list[int]:
        """Where each label's slider starts: evenly spread (the first labels take what does not divide), or at
        the least a label may get."""
        if not scheme.spread:
            return [scheme.min_per_item] * len(scheme.labels)
        share, rest = divmod(scheme.total_points, len(scheme.labels))
        return [share + (place < rest) for place in range(len(scheme.labels))]

    def widget_context(self, scheme, record, field, keys):
        starts = zip(scheme.labels, self.start(scheme), strict=True)
        return {"shares": [{"label": label, "place": place, "start": start}
                           for place, (label, start) in enumerate(starts, 1)]}

    def potato_answer(self, scheme, value, record):
        return {"labels": {name: potato_text(points) for name, points in value.items()}}

    def potato_fields(self, scheme, saved, record):
        return self.form_fields(scheme, saved.get("labels") or {})

    def potato_claims(self, scheme):
        # A belief spread over ranges (one probability is a slider's).
        return super().potato_claims(scheme) and (scheme.get("annotation_type") != "belief_elicitation"
                                                  or scheme.get("mode") == "bins")

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        if alias == "belief_elicitation":  # {"bins": [points of each range, in order]}, JSON in one input
            return {"labels": {scheme.name: potato_json("bins", [value.get(label.name, 0) for label in
                                                                 scheme.labels])}}
        return self.potato_answer(scheme, value, record)

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        if alias != "belief_elicitation":
            return self.potato_fields(scheme, saved, record)
        found = (saved.get("labels") or {}).get(scheme.name)
        points = json.loads(found)["bins"] if found else []
        return self.form_fields(scheme, {label.name: point for label, point in zip(scheme.labels, points,
                                                                                    strict=True)}) if points else {}

    def potato_alias(self, scheme, importer):
        if scheme.get("annotation_type") == "belief_elicitation":
            bins = scheme.get("bins")
            if not isinstance(bins, list) or len(bins) < 2 or any(isinstance(bin, bool | dict | list) for bin in bins):
                raise ValueError("mode: bins needs bins, a list of at least two ranges' names; add them")
            return ({"labels": [str(bin) for bin in bins], "total_points": 100, "instructions":
                     str(scheme.get("instructions") or "")},
                    "a belief spread over ranges, run as 100 points shared out over them in boxes; Potato's scoring "
                    "rule for paying it is not run here")
        # A soft label: a distribution over the labels, in points of `total`, its sliders rebalancing each other.
        total = scheme.get("total", 100)
        return ({"labels": scheme.get("labels"), "total_points": total, "min_per_item": scheme.get("min_per_label", 0),
                 "input_type": "slider", "spread": True},
                f"a soft label, run as {total} points shared out over its labels on sliders that start evenly "
                f"spread and move each other (as Potato's do)"
                + ("; its distribution chart is not drawn" if scheme.get("show_distribution_chart", True) else ""))

    def card_labels(self, scheme):
        return f"{scheme.total_points} points over " + ", ".join(label.name for label in scheme.labels)

    def labelstudio_question(self, scheme):
        return f"{scheme.description or scheme.name} (share out all {scheme.total_points} points)"

    def labelstudio_control(self, scheme, to_name):
        # Label Studio has no shares: a Number a label (a box, or a slider), named <name>_1, <name>_2, …, each under
        # its label, from the least a label may get to the total. That they add up to the total is said in the
        # question and checked when the answers come back, not by Label Studio.
        drawn = ' slider="true"' if scheme.input_type == "slider" else ""
        required = ' required="true"' if scheme.required else ""
        return "\n  ".join(
            f'<Header value={quoteattr(label.name)} size="6"/><Number name={quoteattr(name)} toName='
            f'{quoteattr(to_name)} min="{scheme.min_per_item}" max="{scheme.total_points}" step="1"{drawn}{required}/>'
            for label, name in zip(scheme.labels, self.labelstudio_names(scheme), strict=True))

    def labelstudio_names(self, scheme):
        return [f"{scheme.name}_{place}" for place in range(1, len(scheme.labels) + 1)]

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"from_name": name, "type": "number", "value": {"number": value[label.name]}}
                for label, name in zip(scheme.labels, self.labelstudio_names(scheme), strict=True)
                if label.name in value]

    def from_labelstudio_results(self, scheme, results, regions):
        labels = dict(zip(self.labelstudio_names(scheme), scheme.labels, strict=True))
        return {labels[result["from_name"]].name: result["value"].get("number") for result in results}

    def labelstudio_gather(self, schemes, importer):
        """Numbers (boxes or sliders) named <name>_1 … <name>_N (N ≥ 2), one after another, each under its label's
        header, from one least to one total, below a question saying "(share out all <total> points)", as the
        export above writes points shared out: one constant sum again. Left apart where <name> is taken or another
        control's condition names a part."""
        taken = {scheme["name"] for scheme in schemes}
        place = 0
        while place < len(schemes):
            run = _parts(schemes[place:], importer.conditioned)
            base = PART.match(run[0]["name"]).group(1) if len(run) > 1 else ""
            line, question = importer.header_above(run[0]["name"]) if base else (0, "")
            said = SHARE.match(question)
            if not said or base in taken or int(said.group(2)) != _bounds(run[0])[1]:
                place += 1
                continue
            for part in run:
                importer.take_header(part["name"], question=part is run[0])
            least, total = _bounds(run[0])
            schemes[place:place + len(run)] = [{
                "annotation_type": self.name, "name": base,
                **({"description": said.group(1)} if said.group(1) not in ("", base) else {}),
                "labels": [part["description"] for part in run], "total_points": total, "min_per_item": least,
                **({"input_type": "slider"} if run[0]["annotation_type"] == SliderType.name else {}),
                **({"label_requirement": run[0]["label_requirement"]} if "label_requirement" in run[0] else {})}]
            importer.put_together(base, [part["name"] for part in run])
            importer.notes.append(f"<Number> {run[0]['name']} … {run[-1]['name']} (line {line}): {total} points "
                                  f"shared out over {len(run)} labels, {base!r}, as this platform's export writes one")
            place += 1


def _bounds(part: dict[str, Any]) -> tuple[int, int]:
    """A part's least and most, as a box or a slider gives them (whole numbers, or -1 where it has none)."""
    def whole(value: Any) -> int:
        return int(value) if isinstance(value, int | float) and value == int(value) else -1

    return whole(part.get("min", part.get("min_value"))), whole(part.get("max", part.get("max_value")))


def _parts(schemes: list[dict[str, Any]], conditioned: set) -> list[dict[str, Any]]:
    """The parts of a share starting the list: Numbers named <name>_1, <name>_2, … each with its label as its
    question, nothing else of their own, all boxes or all sliders on one step of 1 between the same least and total,
    with the same requirement, and no condition naming them."""
    def shared(scheme):
        return (PART.match(scheme["name"]).group(1), scheme["annotation_type"], _bounds(scheme),
                scheme.get("label_requirement"))

    run: list[dict[str, Any]] = []
    for scheme in schemes:
        found = PART.match(scheme["name"])
        part = (found and int(found.group(2)) == len(run) + 1 and set(scheme) <= PART_KEYS
                and scheme["annotation_type"] in (NumberType.name, SliderType.name) and scheme.get("description")
                and scheme["name"] not in conditioned and min(_bounds(scheme)) >= 0 and scheme.get("step", 1) == 1)
        if not part or (run and shared(scheme) != shared(run[0])):
            break
        run.append(scheme)
    return run
