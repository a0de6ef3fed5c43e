"""pure_display: text shown between schemes (its description); it takes no answer."""

from __future__ import annotations

from typing import Literal

from designs.schemes.base import SchemeBase, SchemeType, scheme_type


class PureDisplay(SchemeBase):
    """Text shown between the questions (its description); asks nothing and stores nothing."""

    annotation_type: Literal["pure_display"]


@scheme_type
class PureDisplayType(SchemeType):
    name = "pure_display"
    settings = PureDisplay
    aggregators = ("none",)
    potato_keys = ()
    page = {"asks": "0"}
    level = None
    answers = False

    def read(self, scheme, fields, record):
        return None

    def answer_schema(self, scheme):
        return {"type": "null"}
