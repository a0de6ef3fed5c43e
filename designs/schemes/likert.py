"""likert: a point 1..size of an ordered scale."""

from designs.schemes.base import AnswerProblem, SchemeType, number, scheme_type


@scheme_type
class Likert(SchemeType):
    name = "likert"
    level = "ordinal"

    def read(self, scheme, fields, record):
        value = fields.get()
        if not value:
            return None
        point = number(value, "the rating")
        if point not in range(1, scheme.size + 1):
            raise AnswerProblem(f"{value!r} is not a point of the 1 to {scheme.size} scale")
        return int(point)

    def keys(self, scheme):
        return {str(point): str(point) for point in range(1, min(scheme.size, 9) + 1)} if (
            scheme.sequential_key_binding) else {}
