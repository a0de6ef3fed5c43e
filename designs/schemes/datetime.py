"""datetime: a date, a time, both, a month or a year, typed or picked in the browser's own picker (Label Studio's
DateTime). The answer is ISO 8601 text ("2024-03-01", "14:30", "2024-03-01T14:30", "2024-03", "2024")."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, scheme_type

# Each kind: the input the page draws, the pattern of its ISO text, how a person is told to write it.
KINDS = {"date": ("date", r"\d{4}-\d{2}-\d{2}", "2024-03-01"), "time": ("time", r"\d{2}:\d{2}", "14:30"),
         "datetime": ("datetime-local", r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", "2024-03-01T14:30"),
         "month": ("month", r"\d{4}-\d{2}", "2024-03"), "year": ("number", r"\d{4}", "2024")}


def parsed(kind: str, text: str) -> str | None:
    """`text` as the kind's ISO text when it is one (seconds and a time zone after a time are dropped, as a
    browser's picker drops them), else None."""
    text = text.strip()
    if kind in ("time", "datetime"):
        text = re.sub(r"(T?\d{2}:\d{2}):\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$", r"\1", text)
    if not re.fullmatch(KINDS[kind][1], text):
        return None
    try:
        if kind == "date":
            date.fromisoformat(text)
        elif kind == "time":
            time.fromisoformat(text)
        elif kind == "datetime":
            datetime.fromisoformat(text)
        elif kind == "month":
            date.fromisoformat(text + "-01")
    except ValueError:
        return None
    return text


class DateTime(SchemeBase):
    """A date, a time, both, a month or a year."""

    annotation_type: Literal["datetime"]
    kind: Literal["date", "time", "datetime", "month", "year"] = Field("datetime", description="what is asked")
    min: str | None = Field(None, description="the earliest answer, in the kind's ISO form (2024-01-01)")
    max: str | None = Field(None, description="the latest answer, in the kind's ISO form")

    @model_validator(mode="after")
    def _bounds(self) -> DateTime:
        for key in ("min", "max"):
            value = getattr(self, key)
            if value is not None and parsed(self.kind, value) is None:
                raise ValueError(f"{key} {value!r} is not a {self.kind} written as {KINDS[self.kind][2]}")
        return self


@scheme_type
class DateTimeType(SchemeType):
    name = "datetime"
    settings = DateTime
    aggregators = ("majority", "none")
    potato_keys = ()
    labelstudio_tags = ("DateTime",)
    level = "nominal"  # the same moment or not

    def read(self, scheme, fields, record):
        text = fields.get()
        if not text:
            return None
        found = parsed(scheme.kind, text)
        if found is None:
            raise AnswerProblem(f"{text[:40]!r} is not a {scheme.kind}; write it as {KINDS[scheme.kind][2]}")
        # ISO texts of one kind sort as their moments do.
        if (scheme.min and found < scheme.min) or (scheme.max and found > scheme.max):
            raise AnswerProblem(f"{found} is outside {scheme.min or '…'} to {scheme.max or '…'}")
        return found

    def answer_schema(self, scheme):
        return {"type": "string", "pattern": f"^{KINDS[scheme.kind][1]}$"}

    def widget_context(self, scheme, record, field, keys):
        return {"input": KINDS[scheme.kind][0], "example": KINDS[scheme.kind][2]}

    def form_fields(self, scheme, value, record=None):
        return {"": value}

    def card_labels(self, scheme):
        return f"a {scheme.kind}"

    def from_labelstudio(self, control, importer):
        only = {part.strip() for part in control.attrs.get("only", "").split(",") if part.strip()}
        kind = next((name for name in ("date", "time", "month", "year") if only == {name}), "datetime")
        importer.ignore(control, "format")  # the browser's own picker, its answer ISO text
        return {"kind": kind, **{key: control.attrs[key] for key in ("min", "max") if control.attrs.get(key)}}

    def labelstudio_control(self, scheme, to_name):
        only = "" if scheme.kind == "datetime" else f' only="{scheme.kind}"'
        return (f"<DateTime name={quoteattr(scheme.name)} toName={quoteattr(to_name)}{only}"
                + (' required="true"' if scheme.required else "") + "/>")

    def labelstudio_value(self, scheme, value):
        return {"datetime": value}

    def from_labelstudio_results(self, scheme, results, regions):
        return results[0]["value"].get("datetime")
