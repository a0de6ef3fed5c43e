"""radio and select: one label of the scheme's labels (select shows them as a drop-down)."""

from designs.schemes.base import Fields, SchemeType, pick, scheme_type


class OneLabel(SchemeType):
    level = "nominal"

    def read(self, scheme, fields: Fields, record):
        value = fields.get()
        if not value:
            return None
        if scheme.has_free_response and value == "_other":
            text = fields.get("free")[:500]
            return f"other: {text}" if text else None
        return pick(value, [label.name for label in scheme.labels], "labels")

    def keys(self, scheme):
        return scheme.keys()


@scheme_type
class Radio(OneLabel):
    name = "radio"


@scheme_type
class Select(OneLabel):
    name = "select"
