"""pairwise: which of two things (binary: a label, or the tie), or where on a scale between them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from designs.schemes.base import (
    AnswerProblem,
    Label,
    SchemeBase,
    SchemeType,
    Strict,
    labels_in_any_form,
    number,
    one_of,
    pick,
    scheme_type,
)


class Scale(Strict):
    """A pairwise scheme's scale (mode: scale): from strongly A (min) to strongly B (max)."""

    min: int = -3
    max: int = 3
    step: int = Field(1, ge=1)
    min_label: str = ""
    max_label: str = ""


class Pairwise(SchemeBase):
    """Which of two things is better (A, B, or a tie), or how much better on a scale."""

    annotation_type: Literal["pairwise"]
    mode: Literal["binary", "scale"] = Field("binary", description="binary: pick one; scale: a point from A to B")
    items_key: str = Field("pair", description="the item field holding the two things compared")
    labels: list[Label] = Field(default_factory=lambda: [Label(name="A"), Label(name="B")],
                               json_schema_extra=labels_in_any_form)
    allow_tie: bool = Field(False, description="offer a tie as a third answer")
    tie_label: str = Field("Equal", description="the tie's name")
    tie_labels: list[str] = Field(default_factory=list, description="several ways to call it even (equally good, "
                                                                    "equally bad), instead of tie_label")
    scale: Scale = Field(default_factory=Scale)


@scheme_type
class PairwiseType(SchemeType):
    name = "pairwise"
    settings = Pairwise
    aggregators = ("majority", "bradley-terry", "mean", "none")
    potato_keys = ("mode", "items_key", "labels", "allow_tie", "tie_label", "scale")
    categorical = True
    asked_once = True

    def read(self, scheme, fields, record):
        record.options(scheme.items_key, 2)
        value = fields.get()
        if not value:
            return None
        if scheme.mode == "scale":
            point = number(value, "the position")
            low, high, step = scheme.scale.min, scheme.scale.max, scheme.scale.step
            if point not in range(low, high + 1, step):
                raise AnswerProblem(f"{value!r} is not a point of the {low} to {high} scale")
            return int(point)
        return pick(value, self.choices(scheme), "choices")

    def answer_schema(self, scheme):
        if scheme.mode == "scale":
            return {"type": "integer", "minimum": scheme.scale.min, "maximum": scheme.scale.max,
                    "multipleOf": scheme.scale.step}
        return one_of(self.choices(scheme))

    def one_label(self, scheme):
        return scheme.mode == "binary"

    def choices(self, scheme):
        ties = (scheme.tie_labels or [scheme.tie_label]) if scheme.allow_tie else []
        return [label.name for label in scheme.labels[:2]] + ties

    def keys(self, scheme):
        if scheme.mode == "scale":
            return {}
        return {str(number): choice for number, choice in enumerate(self.choices(scheme), 1)}

    def points(self, scheme):
        if scheme.mode == "scale":
            return list(range(scheme.scale.min, scheme.scale.max + 1, scheme.scale.step))
        return []

    def potato_split(self, scheme):
        """A multi-dimension Potato scheme: one binary scheme per dimension, named <scheme>.<dimension>."""
        if scheme.get("mode") != "multi_dimension":
            return None
        dimensions = scheme.get("dimensions")
        if not isinstance(dimensions, list) or not dimensions:
            raise ValueError("a multi_dimension pairwise scheme lists its dimensions; add them")
        parts = []
        for position, dimension in enumerate(dimensions, 1):
            entry = dimension if isinstance(dimension, dict) else {"name": str(dimension)}
            own = str(entry.get("name", position))
            description = entry.get("description")
            part = {"annotation_type": self.name, "name": f"{scheme.get('name', '')}.{own}", "mode": "binary",
                    "description": description.strip() if isinstance(description, str) and description.strip()
                    else own}
            for key in ("items_key", "labels", "allow_tie", "tie_label", "label_requirement"):
                value = entry.get(key, scheme.get(key))
                if value is not None:
                    part[key] = value
            parts.append(part)
        return parts

    def from_potato(self, converted, importer):
        converted.setdefault("items_key", importer.text_key)
        if isinstance(converted.get("scale"), dict):
            converted["scale"] = importer.scale(converted["scale"])
        return [converted]
