"""likert: a point 1..size of an ordered scale."""

from __future__ import annotations

from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from designs.schemes.base import AnswerProblem, SchemeBase, SchemeType, number, scheme_type


class Likert(SchemeBase):
    """A point on a scale of `size` points (1..size), its ends named; agreement is ordinal."""

    annotation_type: Literal["likert"]
    size: int = Field(5, ge=2, le=11, description="how many points")
    min_label: str = Field("", description="the lowest point's name")
    max_label: str = Field("", description="the highest point's name")
    sequential_key_binding: bool = Field(True, description="keys 1..size pick the points")
    displaying_score: bool = Field(True, description="each point's number shown beside it (false: the points "
                                                     "only, their ends named, as Potato's displaying_score: false)")


@scheme_type
class LikertType(SchemeType):
    name = "likert"
    settings = Likert
    nests = True
    aggregators = ("median", "mean", "majority", "none")
    potato_keys = ("size", "min_label", "max_label", "sequential_key_binding", "displaying_score")
    potato_aliases = ("confidence",)
    page = {"badges": "1"}  # a point's key beside it once the keys of another scheme move its own
    level = "ordinal"
    asked_once = True
    labelstudio_tags = ("Rating",)

    def read(self, scheme, fields, record):
        value = fields.get()
        if not value:
            return None
        point = number(value, "the rating")
        if point not in range(1, scheme.size + 1):
            raise AnswerProblem(f"{value!r} is not a point of the 1 to {scheme.size} scale")
        return int(point)

    def answer_schema(self, scheme):
        return {"type": "integer", "minimum": 1, "maximum": scheme.size}

    def keys(self, scheme):
        return {str(point): str(point) for point in range(1, min(scheme.size, 9) + 1)} if (
            scheme.sequential_key_binding) else {}

    def points(self, scheme):
        return list(range(1, scheme.size + 1))

    def card_labels(self, scheme):
        return f"1-{scheme.size}"

    def from_labelstudio(self, control, importer):
        size = importer.integer(control, "maxRating", 5, 2, 11)
        return {"size": size, "sequential_key_binding": True}

    def labelstudio_control(self, scheme, to_name):
        return (f"<Rating name={quoteattr(scheme.name)} toName={quoteattr(to_name)} maxRating=\"{scheme.size}\""
                + (' required="true"' if scheme.required else "") + "/>")

    def labelstudio_value(self, scheme, value):
        return {"rating": value}

    def form_fields(self, scheme, value, record=None):
        return {"": str(value)}

    def from_labelstudio_results(self, scheme, results, regions):
        return results[0]["value"].get("rating")

    def potato_alias(self, scheme, importer):
        # A confidence rating: a likert scale of scale_points, its ends its first and last labels.
        labels = scheme.get("labels") if isinstance(scheme.get("labels"), list) else []
        points = scheme.get("scale_points", len(labels) or 5)
        size = points if isinstance(points, int) and 2 <= points <= 11 else 5
        target = f" (about {scheme['target_schema']})" if scheme.get("target_schema") else ""
        return ({"description": str(scheme.get("description") or "How sure are you?") + target, "size": size,
                 **({"min_label": str(labels[0]), "max_label": str(labels[-1])} if labels else {})},
                f"a confidence rating, run as a likert scale of {size} points"
                + (f" (its {scheme['scale_type']} form too)" if scheme.get("scale_type") not in (None, self.name)
                   else ""))
