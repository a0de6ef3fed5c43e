"""Query parameters read strictly: a value the API cannot use is a 400 naming the parameter, never a
silent default or a database error (an id past 64 bits overflows the database driver)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from drf_spectacular.utils import OpenApiParameter
from rest_framework import parsers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import LimitOffsetPagination

from core.ids import LARGEST_ID, is_whole

SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


def whole(raw: str, name: str, *, low: int, high: int) -> int:
    """`raw` as a whole number from `low` to `high`, else a 400 naming the parameter."""
    if not is_whole(raw, low=low, high=high):
        raise ValidationError({name: [f"{raw[:40]!r} is not a whole number from {low} to {high}"]})
    return int(raw)


def query_id(request, name: str) -> int | None:
    """A positive object id from the query string, None when the parameter is absent."""
    raw = request.query_params.get(name)
    return None if raw is None else whole(raw, name, low=1, high=LARGEST_ID)


def query_slug(request, name: str) -> str | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not SLUG.fullmatch(raw):
        raise ValidationError({name: [f"{raw[:40]!r} is not a slug: letters, digits, - and _, at most 100"]})
    return raw


def query_choice(request, name: str, choices: Sequence[str]) -> str | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if raw not in choices:
        raise ValidationError({name: [f"{raw[:40]!r} is not one of {', '.join(choices)}"]})
    return raw


def id_parameter(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, {"type": "integer", "minimum": 1, "maximum": LARGEST_ID}, description=description)


class StrictLimitOffsetPagination(LimitOffsetPagination):
    """DRF's limit/offset paging, but `offset=null` or `limit=-3` is refused with a 400 naming the parameter
    instead of quietly read as the default."""

    max_limit = 1000

    def get_limit(self, request):
        raw = request.query_params.get(self.limit_query_param)
        if raw is None:
            return self.default_limit
        return whole(raw, self.limit_query_param, low=1, high=self.max_limit)

    def get_offset(self, request):
        raw = request.query_params.get(self.offset_query_param)
        if raw is None:
            return 0
        return whole(raw, self.offset_query_param, low=0, high=LARGEST_ID)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        bounds = {self.limit_query_param: (1, self.max_limit), self.offset_query_param: (0, LARGEST_ID)}
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
        return parameters


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with a body of lists nested past what Python reads (its recursion error was a server
    error) refused as a 400 like any JSON that cannot be read."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply to read") from None
