"""slider: a number on a slider, on its step; agreement is interval."""

from __future__ import annotations

import json
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import SchemeBase, SchemeType, number_schema, potato_json, read_number, scheme_type


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
    potato_aliases = ("vas", "bdm", "belief_elicitation")
    level = "interval"
    labelstudio_tags = ("Number",)

    def labelstudio_claims(self, control):
        return on_slider(control)

    def from_labelstudio(self, control, importer):
        found = {"min_value": importer.number(control, "min"), "max_value": importer.number(control, "max"),
                 "step": importer.number(control, "step"), "starting_value": importer.number(control, "defaultValue")}
        if found["starting_value"] is not None:
            importer.notes.append(f"<Number name={control.attrs.get('name', '')!r}> defaultValue (line {control.line})"
                                  f": the slider starts there, and is no answer until moved (Label Studio sends "
                                  f"an untouched one as its defaultValue)")
        return {key: value for key, value in found.items() if value is not None}

    def labelstudio_control(self, scheme, to_name):
        # Label Studio's Number drawn as a slider, between the same ends, on the same step. Not its defaultValue:
        # Label Studio sends that as the answer of a slider nobody moved, which is no answer here.
        return (f'<Number name={quoteattr(scheme.name)} toName={quoteattr(to_name)} min="{scheme.min_value:g}" '
                f'max="{scheme.max_value:g}" step="{scheme.step:g}" slider="true"'
                + (' required="true"' if scheme.required else "") + "/>")

    def labelstudio_value(self, scheme, value):
        return {"number": value}

    def from_labelstudio_results(self, scheme, results, regions):
        return results[0]["value"].get("number")

    def form_fields(self, scheme, value, record=None):
        return {"": f"{value:g}"} if isinstance(value, int | float) and not isinstance(value, bool) else {}

    def read(self, scheme, fields, record):
        return read_number(fields, scheme.min_value, scheme.max_value, scheme.step)

    def answer_schema(self, scheme):
        return number_schema(scheme.min_value, scheme.max_value)

    def potato_claims(self, scheme):
        # A bid on a slider (a typed one is a number's); a belief as one probability (a spread one is points).
        kind = scheme.get("annotation_type")
        return super().potato_claims(scheme) and (
            kind == "vas" or (kind == "bdm" and scheme.get("input") == "slider")
            or (kind == "belief_elicitation" and scheme.get("mode", "point") != "bins"))

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's vas stores its one range input under the scheme's own name; a bid and a belief keep JSON there.
        if alias == "bdm":
            return {"labels": {scheme.name: potato_json("bid", value)}}
        if alias == "belief_elicitation":
            return {"labels": {scheme.name: potato_json("report", value)}}
        return {"labels": {scheme.name: f"{value:g}"}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        found = (saved.get("labels") or {}).get(scheme.name)
        if found in (None, ""):
            return {}
        if alias in ("bdm", "belief_elicitation"):  # the JSON its page keeps
            return {"": str(json.loads(found)["bid" if alias == "bdm" else "report"])}
        return {"": str(found)}

    def potato_alias(self, scheme, importer):
        if scheme.get("annotation_type") == "bdm":
            found, note = bid(scheme)
            middle = found["low"] + round((found["high"] - found["low"]) / 2 / found["step"]) * found["step"]
            return ({"instructions": found["instructions"], "min_value": found["low"], "max_value": found["high"],
                     "step": found["step"], "starting_value": middle},
                    f"a bid (Becker-DeGroot-Marschak), run as a slider; {note}")
        if scheme.get("annotation_type") == "belief_elicitation":
            return _belief(scheme)
        # A visual analogue scale: a slider from min_value to max_value (0-100), on its precision's step.
        ends = " – ".join(str(scheme[key]) for key in ("left_label", "right_label") if scheme.get(key))
        precision = scheme.get("precision", 1)
        step = 10 ** -precision if isinstance(precision, int) and 0 <= precision <= 4 else 1
        description = str(scheme.get("description") or scheme.get("name", ""))
        return ({**({"description": f"{description} ({ends})"} if ends else {}),
                 "min_value": scheme.get("min_value", 0), "max_value": scheme.get("max_value", 100), "step": step},
                f"a visual analogue scale, run as a slider on steps of {step:g}"
                + (f", its ends ({ends}) in its question" if ends else ""))


def on_slider(control: Any) -> bool:
    """Whether a Label Studio control is a Number drawn as a slider between two ends it names (a slider's; a Number
    without both ends is a box, as it is without slider)."""
    return (control.tag == "Number" and control.attrs.get("slider") == "true"
            and all(control.attrs.get(end) is not None for end in ("min", "max")))


def _belief(scheme: dict) -> tuple[dict, str]:
    """Potato's belief_elicitation of one probability: a slider from 0 to 100 on its step, its ends named as
    Potato names them (Certainly not, Certainly)."""
    mode, step = scheme.get("mode", "point"), scheme.get("step", 1)
    if mode != "point":
        raise ValueError(f"mode is {mode!r}; write point or bins")
    if isinstance(step, bool) or not isinstance(step, int | float) or not 0 < step <= 50:
        raise ValueError(f"step is {step!r}; write a number between 0 and 50, such as 1 or 5")
    ends = f"0% {scheme.get('left_label', 'Certainly not')} – {scheme.get('right_label', 'Certainly')} 100%"
    instructions = "\n\n".join(part for part in (str(scheme.get("instructions") or ""),
                                                   f"Probability (0 to 100%): {ends}.") if part)
    return ({"instructions": instructions, "min_value": 0, "max_value": 100, "step": step, "starting_value": 50},
            "a belief (a probability), run as a slider from 0 to 100; Potato's scoring rule for paying it is not "
            "run here")


def bid(scheme: dict) -> tuple[dict, str]:
    """Potato's bdm (a Becker-DeGroot-Marschak bid) as a number's or a slider's keys, checked as Potato checks it:
    its bounds (`low`, `high`) and step, its instructions followed by the range in its currency; and what the
    import says it does not run."""
    low, high, step = scheme.get("min", 0), scheme.get("max"), scheme.get("step", 0.01)
    if high is None:
        raise ValueError("needs max, the largest bid allowed; add it")
    if not all(isinstance(bound, int | float) and not isinstance(bound, bool) for bound in (low, high, step)) \
            or low < 0 or high <= low or not 0 < step <= high - low:
        raise ValueError(f"min {low!r}, max {high!r} and step {step!r} must be numbers with 0 <= min < max and "
                         f"0 < step <= max - min")
    if scheme.get("input", "number") not in ("number", "slider"):
        raise ValueError(f"input is {scheme['input']!r}; write number or slider")
    currency = str(scheme.get("currency", "$"))
    said = f"{scheme.get('bid_label', 'Your bid')}: any amount from {currency}{low:,.2f} to {currency}{high:,.2f}."
    instructions = "\n\n".join(part for part in (str(scheme.get("instructions") or ""), said) if part)
    return ({"instructions": instructions, "low": low, "high": high, "step": step},
            "Potato's draw of the price after the study is not run here")
