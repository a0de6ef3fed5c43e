"""pairwise: which of two things (binary: a label, or the tie), or where on a scale between them."""

from designs.schemes.base import AnswerProblem, SchemeType, number, pick, scheme_type


@scheme_type
class Pairwise(SchemeType):
    name = "pairwise"
    level = "nominal"

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

    def choices(self, scheme):
        ties = (scheme.tie_labels or [scheme.tie_label]) if scheme.allow_tie else []
        return [label.name for label in scheme.labels[:2]] + ties

    def keys(self, scheme):
        if scheme.mode == "scale":
            return {}
        return {str(number): choice for number, choice in enumerate(self.choices(scheme), 1)}
