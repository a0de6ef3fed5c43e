"""number: a number typed in a box, checked against min and max on the page and on the server."""

from __future__ import annotations

import json
from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from designs.schemes.base import (
    SchemeBase,
    SchemeType,
    number_schema,
    potato_json,
    potato_text,
    read_number,
    scheme_type,
)
from designs.schemes.slider import bid, on_slider


class Number(SchemeBase):
    """A number typed in a box, checked against min and max on the page and on the server."""

    annotation_type: Literal["number"]
    min: float | None = None
    max: float | None = None
    step: float | None = Field(None, gt=0, description="the answer is a multiple of it (1: whole numbers)")


@scheme_type
class NumberType(SchemeType):
    name = "number"
    potato_input = "number"
    settings = Number
    nests = True
    aggregators = ("mean", "median", "none")
    potato_keys = ("min", "max", "step")
    level = "interval"
    labelstudio_tags = ("Number",)
    potato_aliases = ("bdm",)

    def potato_claims(self, scheme):
        return super().potato_claims(scheme) and scheme.get("input", "number") != "slider"

    def potato_alias(self, scheme, importer):
        found, note = bid(scheme)
        return ({"instructions": found["instructions"], "min": found["low"], "max": found["high"],
                 "step": found["step"]}, f"a bid (Becker-DeGroot-Marschak), run as a number typed in a box; {note}")

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's bdm keeps {"bid": …} as JSON in one input of the scheme's name.
        return {"labels": {scheme.name: potato_json("bid", value)}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        found = (saved.get("labels") or {}).get(scheme.name)
        return {"": str(json.loads(found)["bid"])} if found else {}

    def read(self, scheme, fields, record):
        return read_number(fields, scheme.min, scheme.max, scheme.step)

    def answer_schema(self, scheme):
        return number_schema(scheme.min, scheme.max)

    def labelstudio_claims(self, control):
        return control.tag == "Number" and not on_slider(control)

    def from_labelstudio(self, control, importer):
        importer.ignore(control, "defaultValue")  # Label Studio sends it for a box left empty; empty is no answer here
        bounds = {key: importer.number(control, key) for key in ("min", "max", "step")}
        return {key: value for key, value in bounds.items() if value is not None}

    def labelstudio_control(self, scheme, to_name):
        bounds = "".join(f' {key}="{value:g}"' for key, value in (("min", scheme.min), ("max", scheme.max),
                                                                   ("step", scheme.step)) if value is not None)
        return (f"<Number name={quoteattr(scheme.name)} toName={quoteattr(to_name)}{bounds}"
                + (' required="true"' if scheme.required else "") + "/>")

    def labelstudio_value(self, scheme, value):
        return {"number": value}

    def form_fields(self, scheme, value, record=None):
        return {"": potato_text(value)}

    def from_labelstudio_results(self, scheme, results, regions):
        return results[0]["value"].get("number")

