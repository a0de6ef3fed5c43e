"""range_slider: a range on a scale, its low and its high end (Potato's range_slider, a dual-thumb slider).
Its two sliders, low and high, write "<prefix>-low" and "<prefix>-high" once either is moved (designs/points.js)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    number_schema,
    potato_text,
    read_number,
    scheme_type,
)


class RangeSlider(SchemeBase):
    """A range on a scale: its low end and its high end."""

    annotation_type: Literal["range_slider"]
    min_value: float = 0
    max_value: float = 100
    step: float = Field(1, gt=0)
    left_label: str = Field("", description="shown at the scale's low end")
    right_label: str = Field("", description="shown at the scale's high end")
    show_values: bool = Field(True, description="the ends' values shown beside the sliders")

    @model_validator(mode="after")
    def _scale(self) -> RangeSlider:
        if self.min_value >= self.max_value:
            raise ValueError(f"min_value {self.min_value} must be below max_value {self.max_value}")
        return self


ENDS = ("low", "high")


@scheme_type
class RangeSliderType(SchemeType):
    name = "range_slider"
    settings = RangeSlider
    aggregators = ("median", "mean", "none")
    potato_keys = ("min_value", "max_value", "step", "left_label", "right_label", "show_values")
    level = "interval"  # per end
    page = {"value": "texts"}
    script = "designs/points.js"

    def form_fields(self, scheme, value, record=None):
        return {end: f"{value[end]:g}" for end in ENDS if isinstance(value, dict) and isinstance(value.get(end),
                                                                                               int | float)}

    def read(self, scheme, fields, record):
        ends = [read_number(fields.part(end), scheme.min_value, scheme.max_value, scheme.step) for end in ENDS]
        if ends == [None, None]:
            return None
        if None in ends:
            raise AnswerProblem("set both ends of the range")
        low, high = ends
        if low > high:
            raise AnswerProblem(f"the low end ({low:g}) is above the high end ({high:g})")
        return {"low": low, "high": high}

    def answer_schema(self, scheme):
        end = number_schema(scheme.min_value, scheme.max_value)
        return {"type": "object", "properties": {"low": end, "high": end}, "required": list(ENDS),
                "additionalProperties": False}

    def units(self, scheme, value, text=""):
        return dict(value)

    def potato_answer(self, scheme, value, record):
        return {"labels": {f"range_{end}": potato_text(value[end]) for end in ENDS}}

    def potato_fields(self, scheme, saved, record):
        labels = saved.get("labels") or {}
        return {end: str(labels[f"range_{end}"]) for end in ENDS if f"range_{end}" in labels}

    def card_labels(self, scheme):
        return f"a range from {scheme.min_value:g} to {scheme.max_value:g}"
