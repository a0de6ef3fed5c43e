"""COPA and Balanced COPA files (the XML of the COPA release): read into `ChoiceItem`s with their
pairs, written as the records researchers load (`premise, a1, a2, asks_for, label, pair_id, mirrored`)
with train/dev splits that never put an original and its mirror on different sides.

In Balanced COPA an item N above `MIRROR_OFFSET` mirrors item N - 1000: a new premise for which the
original's wrong alternative is right.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path

from core.errors import InputError
from core.items import ChoiceItem
from core.xmlrecords import XmlRecord, read_records

MIRROR_OFFSET = 1000
FIELDS = ("id", "premise", "a1", "a2", "asks_for", "label", "pair_id", "mirrored")


class CopaFileError(InputError):
    """A COPA XML file that cannot be read; the message names the file, line and item."""


def read_copa(path: str | PathLike[str], data: bytes | None = None) -> list[ChoiceItem]:
    """The items of a COPA XML file (or of `data`, an upload `path` names) in file order. Refused by line: XML
    that does not parse, an item without its id, asks-for, most-plausible-alternative, p, a1 or a2, a repeated
    id, and a mirror whose original the file does not have."""
    return [item for _, item in read_copa_lines(path, data)]


def read_copa_lines(path: str | PathLike[str], data: bytes | None = None) -> list[tuple[int, ChoiceItem]]:
    """read_copa's items, each with the line it starts on (for what is said of it later, as items of a design)."""
    found = read_records(path, "item", ("p", "a1", "a2"), CopaFileError, data)
    items: list[tuple[int, ChoiceItem]] = []
    lines: dict[int, int] = {}
    for raw in found:
        line = raw.line
        number = _whole(raw.attributes.get("id"), path, line, "id")
        if number in lines:
            raise CopaFileError(f"id {number} repeats line {lines[number]}", file=path, line=line, field="id")
        lines[number] = line
        answer = _whole(raw.attributes.get("most-plausible-alternative"), path, line, "most-plausible-alternative")
        mirrored = number > MIRROR_OFFSET
        try:
            items.append((line, ChoiceItem(
                premise=_text(raw, "p", path, line), alternative_1=_text(raw, "a1", path, line),
                alternative_2=_text(raw, "a2", path, line), item_id=str(number),
                asks_for=raw.attributes.get("asks-for", ""), answer=answer,
                pair_id=str(number - MIRROR_OFFSET if mirrored else number), mirrored=mirrored)))
        except InputError as error:
            raise CopaFileError(f"item {number}: {error.message}", file=path, line=line, field=error.field) from None
    for line, item in items:
        if item.mirrored and int(item.pair_id) not in lines:
            raise CopaFileError(f"item {item.item_id} mirrors item {item.pair_id} (ids above {MIRROR_OFFSET} are "
                                f"mirrors), which this file does not have", file=path, line=line)
    return items


def _whole(value: str | None, path: object, line: int, field: str) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise CopaFileError(f"{value!r} is not a whole number" if value else "is missing", file=path, line=line,
                            field=field) from None


def _text(raw: XmlRecord, tag: str, path: object, line: int) -> str:
    value = raw.text(tag)
    if not value:
        raise CopaFileError(f"<{tag}> is missing or empty", file=path, line=line, field=tag)
    return value


def pairs(items: Iterable[ChoiceItem]) -> dict[str, list[ChoiceItem]]:
    """{pair id: its items}, the original first."""
    grouped: dict[str, list[ChoiceItem]] = {}
    for item in items:
        grouped.setdefault(item.pair_id, []).append(item)
    return {key: sorted(members, key=lambda item: item.mirrored) for key, members in grouped.items()}


def record(item: ChoiceItem, label: int | None = None) -> dict[str, object]:
    """One exported row; `label` (1 or 2) defaults to the intended answer."""
    return {"id": item.item_id, "premise": item.premise, "a1": item.alternative_1, "a2": item.alternative_2,
            "asks_for": item.asks_for, "label": item.answer if label is None else label, "pair_id": item.pair_id,
            "mirrored": item.mirrored}


def split_pairs(items: Sequence[ChoiceItem], *, dev_share: float = 0.1, seed: int = 0) -> dict[str, list[ChoiceItem]]:
    """{"train": [...], "dev": [...]}: whole pairs drawn (seeded) for dev, round(pairs × dev_share) of them."""
    if not 0 < dev_share < 1:
        raise InputError("the dev share is between 0 and 1, e.g. 0.1 (the paper's 9:1)", field="dev_share")
    grouped = pairs(items)
    keys = sorted(grouped, key=lambda key: (len(key), key))
    dev = set(random.Random(seed).sample(keys, round(len(keys) * dev_share)))
    return {"train": [item for key in keys if key not in dev for item in grouped[key]],
            "dev": [item for key in keys if key in dev for item in grouped[key]]}


def write_sides(sides: dict[str, list[ChoiceItem]], folder: str | PathLike[str]) -> list[str]:
    """`<side>.jsonl` and `<side>.csv` per side in `folder`; the names written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for side, members in sides.items():
        rows = [record(item) for item in members]
        (out / f"{side}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        with open(out / f"{side}.csv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        written += [f"{side}.jsonl", f"{side}.csv"]
    return written


def right_and_wrong(items: Iterable[ChoiceItem]) -> list[tuple[str, str]]:
    """(right alternative, wrong alternative) of each item with an intended answer, for the cue report."""
    return [(item.alternative_1, item.alternative_2) if item.answer == 1 else (item.alternative_2, item.alternative_1)
            for item in items if item.answer is not None]
