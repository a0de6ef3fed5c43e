"""slider: a number on a slider, on its step; agreement is interval."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from designs.schemes.base import SchemeBase, SchemeType, number_schema, read_number, scheme_type


class Slider(SchemeBase):
    """A number on a slider; agreement is interval."""

    annotation_type: Literal["slider"]
    min_value: float = 0
    max_value: float = 100
    starting_value: float | None = Field(None, description="where the handle starts (default: the middle)")
    step: float = Field(1, gt=0)

    @model_validator(mode="after")
    def _range(self) -> Slider:
        if self.min_value >= self.max_value:
            raise ValueError(f"min_value {self.min_value} must be below max_value {self.max_value}")
        return self


@scheme_type
class SliderType(SchemeType):
    name = "slider"
    potato_input = "slider"
    settings = Slider
    aggregators = ("mean", "median", "none")
    potato_keys = ("min_value", "max_value", "starting_value", "step")
    potato_aliases = ("vas",)
    level = "interval"

    def form_fields(self, scheme, value, record=None):
        return {"": f"{value:g}"} if isinstance(value, int | float) and not isinstance(value, bool) else {}

    def read(self, scheme, fields, record):
        return read_number(fields, scheme.min_value, scheme.max_value, scheme.step)

    def answer_schema(self, scheme):
        return number_schema(scheme.min_value, scheme.max_value)

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's vas stores its one range input under the scheme's own name.
        return {"labels": {scheme.name: f"{value:g}"}}

    def potato_alias(self, scheme, importer):
        # A visual analogue scale: a slider from min_value to max_value (0-100), on its precision's step.
        ends = " – ".join(str(scheme[key]) for key in ("left_label", "right_label") if scheme.get(key))
        precision = scheme.get("precision", 1)
        step = 10 ** -precision if isinstance(precision, int) and 0 <= precision <= 4 else 1
        description = str(scheme.get("description") or scheme.get("name", ""))
        return ({**({"description": f"{description} ({ends})"} if ends else {}),
                 "min_value": scheme.get("min_value", 0), "max_value": scheme.get("max_value", 100), "step": step},
                f"a visual analogue scale, run as a slider on steps of {step:g}"
                + (f", its ends ({ends}) in its question" if ends else ""))
