"""The one extension mechanism.

A lower app declares a `Registry` for what it lets others plug in (task
types, eligibility checks, revokers, job kinds, ...); a higher app registers
into it from its `AppConfig.ready()`. The lower app then calls what is
registered without importing the higher one, so dependencies point one way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, what: str):
        self.what = what
        self._entries: dict[str, T] = {}

    def register(self, name: str, entry: T) -> T:
        """Add `entry` under `name`; registering the same entry again is harmless, another one is refused."""
        existing = self._entries.get(name)
        if existing is not None and existing is not entry:
            raise ValueError(f"{self.what} {name!r} is registered already")
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise LookupError(f"unknown {self.what} {name!r}; known: {known}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def items(self) -> list[tuple[str, T]]:
        return sorted(self._entries.items())

    def names(self) -> list[str]:
        return sorted(self._entries)
