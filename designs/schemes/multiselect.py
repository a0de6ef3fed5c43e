"""multiselect: any set of the scheme's labels, one checkbox each ("<prefix>-<label number>")."""

from designs.schemes.base import AnswerProblem, SchemeType, scheme_type


@scheme_type
class Multiselect(SchemeType):
    name = "multiselect"
    level = "nominal"

    def read(self, scheme, fields, record):
        chosen = [label.name for number, label in enumerate(scheme.labels, 1) if fields.get(str(number))]
        if not chosen:
            return None
        if len(chosen) < scheme.min_selected:
            raise AnswerProblem(f"pick at least {scheme.min_selected} (you picked {len(chosen)})")
        if scheme.max_selected is not None and len(chosen) > scheme.max_selected:
            raise AnswerProblem(f"pick at most {scheme.max_selected} (you picked {len(chosen)})")
        return chosen

    def units(self, scheme, value):
        # Agreement per label: was it chosen? (A set compared whole would count near misses as full misses.)
        return {label.name: label.name in value for label in scheme.labels}

    def keys(self, scheme):
        return scheme.keys()
