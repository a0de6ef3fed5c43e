"""pure_display: text shown between schemes; it takes no answer."""

from designs.schemes.base import SchemeType, scheme_type


@scheme_type
class PureDisplay(SchemeType):
    name = "pure_display"
    level = None

    def read(self, scheme, fields, record):
        return None
