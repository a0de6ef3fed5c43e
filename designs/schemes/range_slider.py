"""range_slider: a range on a scale, its low and its high end (Potato's range_slider, a dual-thumb slider).
Its two sliders, low and high, write "<prefix>-low" and "<prefix>-high" once either is moved (designs/points.js)."""

from __future__ import annotations

from typing import Any, Literal
from xml.sax.saxutils import quoteattr

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
from designs.schemes.slider import SliderType


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
HEADERS = {"low": "Low end", "high": "High end"}  # each end's slider in Label Studio, under its question
END_KEYS = {"annotation_type", "name", "description", "min_value", "max_value", "step", "label_requirement"}


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

    def labelstudio_control(self, scheme, to_name):
        # Label Studio has no range: a slider an end, named <name>_low and <name>_high, each under its end's header.
        # The scale's end labels join the question (as a visual analogue scale's do on import); that a range's low
        # end is not above its high end is checked when its answers come back, not by Label Studio.
        required = ' required="true"' if scheme.required else ""
        return "\n  ".join(
            f'<Header value={quoteattr(HEADERS[end])} size="6"/><Number name={quoteattr(name)} '
            f'toName={quoteattr(to_name)} min="{scheme.min_value:g}" max="{scheme.max_value:g}" step="{scheme.step:g}"'
            f' slider="true"{required}/>' for end, name in zip(ENDS, self.labelstudio_names(scheme), strict=True))

    def labelstudio_question(self, scheme):
        ends = " – ".join(label for label in (scheme.left_label, scheme.right_label) if label)
        question = scheme.description or scheme.name
        return f"{question} ({ends})" if ends else scheme.description

    def labelstudio_names(self, scheme):
        return [f"{scheme.name}_{end}" for end in ENDS]

    def labelstudio_results(self, scheme, value, to_name, regions):
        return [{"from_name": name, "type": "number", "value": {"number": value[end]}}
                for end, name in zip(ENDS, self.labelstudio_names(scheme), strict=True) if end in value]

    def from_labelstudio_results(self, scheme, results, regions):
        ends = dict(zip(self.labelstudio_names(scheme), ENDS, strict=True))
        return {ends[result["from_name"]]: result["value"].get("number") for result in results}

    def labelstudio_gather(self, schemes, importer):
        """Two sliders named <name>_low and <name>_high one after the other, on the same scale and step, asked by
        nothing more than their ends' headers, as the export above writes a range: one range again, its question the
        header just above the low end's. Left apart where <name> is taken or another control's condition names
        an end."""
        taken = {scheme["name"] for scheme in schemes}
        place = 0
        while place < len(schemes) - 1:
            low, high = schemes[place], schemes[place + 1]
            base = low["name"].removesuffix("_low")
            place += 1
            ends = zip((low, high), ENDS, strict=True)
            if not (low["name"].endswith("_low") and high["name"] == f"{base}_high" and base not in taken
                    and all(_end(end, side) for end, side in ends) and _scale(low) == _scale(high)
                    and not {low["name"], high["name"]} & importer.conditioned):
                continue
            line, question = importer.header_above(low["name"])
            for end in (low, high):
                importer.take_header(end["name"])
            schemes[place - 1:place + 1] = [{"annotation_type": self.name, "name": base,
                                             **({"description": question} if question else {}), **_scale(low)}]
            importer.put_together(base, [low["name"], high["name"]])
            importer.notes.append(f"<Number> {low['name']} and {high['name']} (line {line}): the two ends of one "
                                  f"range, {base!r}, as this platform's export writes one")


def _end(scheme: dict[str, Any], side: str) -> bool:
    """Whether an imported scheme is one end of a range as the export writes it: a bare slider under its end's
    header (another pair of sliders stays two, so no answer is refused for a low end above a high one)."""
    return (scheme["annotation_type"] == SliderType.name and set(scheme) <= END_KEYS
            and scheme.get("description") == HEADERS[side])


def _scale(scheme: dict[str, Any]) -> dict[str, Any]:
    return {key: scheme[key] for key in ("min_value", "max_value", "step", "label_requirement") if key in scheme}
