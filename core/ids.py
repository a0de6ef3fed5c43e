"""Numbers a person can type into a query string or a form, read without trusting them: ASCII digits in a range.

`str.isdigit` alone lets through "²" (which `int` refuses) and ids past 64 bits (which the database driver
cannot bind), each a server error on the page that read it.
"""

from __future__ import annotations

LARGEST_ID = 2**63 - 1  # a bigint primary key; past it no object exists and the driver overflows


def is_whole(raw: object, *, low: int, high: int) -> bool:
    return isinstance(raw, str) and raw.isascii() and raw.isdigit() and low <= int(raw) <= high


def object_id(raw: object) -> int | None:
    """`raw` as an object's id, or None where it cannot be one (absent, a word, a sign, past 64 bits)."""
    return int(raw) if isinstance(raw, str) and is_whole(raw, low=1, high=LARGEST_ID) else None
