"""multirate: one label (a column) for each of the scheme's options (the rows): "<prefix>-<row number>"."""

from designs.schemes.base import AnswerProblem, SchemeType, pick, scheme_type


@scheme_type
class Multirate(SchemeType):
    name = "multirate"
    level = "nominal"

    def read(self, scheme, fields, record):
        labels = [label.name for label in scheme.labels]
        rated = {row: fields.get(str(number)) for number, row in enumerate(scheme.options, 1)}
        if not any(rated.values()):
            return None
        unrated = [row for row, value in rated.items() if not value]
        if unrated:
            raise AnswerProblem(f"rate every row ({unrated[0]!r} is not rated yet)")
        return {row: pick(value, labels, "labels") for row, value in rated.items()}

    def units(self, scheme, value):
        return dict(value)
