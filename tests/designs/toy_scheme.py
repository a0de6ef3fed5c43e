"""A scheme type made for tests/designs/test_scheme_types.py as docs/development.md says a type is added: one
module (this) and one widget. It is registered only where a test imports it."""

from typing import Literal

from pydantic import Field

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, number, scheme_type


class Stars(SchemeBase):
    """From one to `stars` stars."""

    annotation_type: Literal["stars"]
    stars: int = Field(5, ge=2, le=10, description="how many stars")


@scheme_type
class StarsType(SchemeType):
    name = "stars"
    settings = Stars
    aggregators = ("median", "mean", "none")
    potato_keys = ()
    level = "ordinal"
    asked_once = True

    def read(self, scheme, fields, record):
        value = fields.get()
        if not value:
            return None
        found = number(value, "the stars")
        if found not in range(1, scheme.stars + 1):
            raise AnswerProblem(f"give 1 to {scheme.stars} stars")
        return int(found)

    def answer_schema(self, scheme):
        return {"type": "integer", "minimum": 1, "maximum": scheme.stars}

    def keys(self, scheme):
        return {str(star): str(star) for star in range(1, min(scheme.stars, 9) + 1)}
