"""What every scheme type has: the registry, the record it reads against and the form fields of one answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.registry import Registry
from designs.model import AGGREGATORS


class AnswerProblem(ValueError):
    """An answer that does not fit its scheme; the message is for the annotator (the page adds where)."""


@dataclass(frozen=True)
class Record:
    """An item as a scheme sees it: its text and its other fields."""

    id: str
    text: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def options(self, key: str, size: int | None = None) -> list[str]:
        """The things a pairwise or best-worst scheme compares: the list under `key` (strings)."""
        value = self.fields.get(key)
        if not isinstance(value, list) or not value or (size is not None and len(value) != size):
            wanted = f"a list of {size}" if size else "a list"
            raise AnswerProblem(f"item {self.id!r} has no {wanted} under {key!r} to compare")
        return [str(entry) for entry in value]


@dataclass(frozen=True)
class Fields:
    """The submitted form fields of one scheme on one item: "<prefix>" and "<prefix>-<part>"."""

    raw: Mapping[str, Any]
    prefix: str

    def get(self, part: str = "") -> str:
        value = self.raw.get(f"{self.prefix}-{part}" if part else self.prefix)
        return "" if value is None else str(value).strip()


class SchemeType:
    name: ClassVar[str] = ""
    # Krippendorff's level of measurement for its answers, or None when answers are not compared (free text).
    level: ClassVar[str | None] = "nominal"

    @property
    def aggregators(self) -> tuple[str, ...]:
        """The aggregations that fit, the first the default (designs.model.AGGREGATORS, the one list)."""
        return AGGREGATORS[self.name]

    @property
    def widget(self) -> str:
        return f"designs/widgets/{self.name}.html"

    def read(self, scheme: Any, fields: Fields, record: Record) -> Any:
        """The answer in the form, None when the annotator gave none; AnswerProblem when it does not fit."""
        raise NotImplementedError

    def units(self, scheme: Any, value: Any) -> dict[str, Any]:
        """The answer as {unit suffix: comparable value} for agreement ("" for the item itself); a multirate
        answer is one unit per row."""
        return {"": value}

    def keys(self, scheme: Any) -> dict[str, str]:
        """Keyboard key -> the value it picks, for the page."""
        return {}


SCHEME_TYPES: Registry[SchemeType] = Registry("scheme type")


def scheme_type(cls: type[SchemeType]) -> type[SchemeType]:
    SCHEME_TYPES.register(cls.name, cls())
    return cls


def pick(value: str, allowed: list[str], what: str) -> str:
    if value not in allowed:
        shown = ", ".join(allowed[:8]) + (" …" if len(allowed) > 8 else "")
        raise AnswerProblem(f"{value[:40]!r} is not one of the {what} ({shown})")
    return value


def number(value: str, what: str) -> float:
    try:
        found = float(value)
    except ValueError:
        raise AnswerProblem(f"{value[:20]!r} is not a number") from None
    if found != found or found in (float("inf"), float("-inf")):
        raise AnswerProblem(f"{what} must be a finite number")
    return int(found) if found.is_integer() else found
