"""Reading a design's items: a JSON array, JSON Lines, CSV or TSV file of records, each with the id and the
text under the design's `id_key` and `text_key`, or an XML corpus a registered reader knows (COPA's, RTE's).
Django-free; every refusal names the file and line."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from core.csvfields import allow_fields
from core.errors import InputError, decode_utf8
from core.registry import Registry
from core.xmlrecords import root_tag
from designs.dialogue import SAYINGS, SPEAKERS, as_line, as_lines, turns  # noqa: F401  (read from here too)
from designs.model import Design, Items
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import Record as SchemeRecord

MAX_LINE = 1_000_000  # characters of one record; longer is not an annotation item
# How deep lists and objects may nest in a record: an item's fields go a few levels down (a dialogue's turns, a
# tree's replies); hundreds of levels would make every reading of it recurse past Python's limit.
MAX_DEPTH = 100
TOO_DEEP = (f"a record nests lists or objects more than {MAX_DEPTH} levels deep; an item's fields go a few levels "
            f"down: write it flatter")
# An item field holding a model's suggested answers ({"model", "score", "answers": {scheme: answer}}): the page
# starts with them, marked as such; the answers people give are stored apart, on their assignments.
SUGGESTED = "_suggested"
# An item field holding what a Label Studio task gave its Paragraphs, HyperText and a List with html entries ({field:
# turns, markup or entries}): the page shows them as text (one turn a line, the HTML's words); the labelstudio export
# gives them back as they came.
GIVEN = "_given"
FORMATS = ("json", "jsonl", "csv", "tsv", "xml")
# The XML corpora read as items, by their root element (COPA's <copa-corpus>, RTE's <entailment-corpus>): the app
# that knows a corpus registers its reader, which gives the rows the design made for it reads, each with its line.
XML_ITEMS: Registry[Callable[[bytes, str], list[tuple[int, dict[str, Any]]]]] = Registry("XML corpus of items")


MODEL = "model"  # the source of a language model's answers given beside the crowd (designs.models.OutsideAnswer)
KEY_LENGTH = 100  # hits.Item.key's column


def item_key(record_id: str) -> str:
    """A record's item key in its batch: `record:` and its id; for an id too long for the column, its start and a
    digest of the whole, since ids alike in their first 93 characters (URLs, often) are still two items. The key is
    never read back as the id: that is the payload's `record_id`."""
    key = f"record:{record_id}"
    if len(key) <= KEY_LENGTH:
        return key
    return f"{key[:KEY_LENGTH - 41]}#{hashlib.sha256(record_id.encode()).hexdigest()[:40]}"


class Given(NamedTuple):
    """One annotator's answers to one item, given in another tool (a Label Studio task's annotation, or a model's
    prediction): stored beside the crowd's (designs.models.OutsideAnswer), never as a HIT's."""

    item: str  # the record's id
    annotator: str  # as the other tool names them
    answers: dict[str, Any]  # {scheme: value}, as the scheme types read them
    when: datetime | None = None
    meta: dict[str, Any] | None = None  # a model's answers: their score and confidence


class ItemsError(InputError):
    pass


@dataclass(frozen=True)
class Record:
    id: str
    text: str
    fields: dict[str, Any] = field(default_factory=dict)
    gold: Any = None
    group: str = ""
    line: int = 0
    file: str = ""  # the items file it was read from (one of several a Potato config lists)


def read_items(data: bytes, *, name: str, design: Design, format: str | None = None) -> list[Record]:
    """The records of `data` (a file called `name`), checked against the design's item settings and against
    what its schemes need of an item."""
    records = read_records(data, name=name, settings=design.items, format=format)
    found = unanswerable(design, records)
    if found:
        raise ItemsError(found[1], file=name, line=found[0].line or None)
    return records


def unanswerable(design: Design, records: list[Record]) -> tuple[Record, str] | None:
    """The first record a scheme of the design's first stage cannot be answered on, with what is missing and how
    many records lack it; None when every scheme can be answered on every record."""
    first = set(design.stages[0].schemes) if design.stages else None
    schemes = [(scheme, SCHEME_TYPES.of(scheme)) for scheme in design.annotation_schemes
               if first is None or scheme.name in first]
    problems: list[tuple[Record, str]] = []
    for record in records:
        seen = SchemeRecord(id=record.id, text=record.text, fields=record.fields)
        problem = next((f"scheme {scheme.name!r}: {found}" for scheme, kind in schemes
                        if (found := kind.item_problem(scheme, seen))), None)
        if problem:
            problems.append((record, problem))
    if not problems:
        return None
    record, problem = problems[0]
    more = f" (and {len(problems) - 1} more of the {len(records)} items)" if len(problems) > 1 else ""
    return record, f"{problem}{more}; every item needs it"


def panes(value: Any, labels: list[str] | None = None) -> list[dict[str, str]] | None:
    """What Potato's pairwise display shows side by side, or None when the value is not several things: each pane's
    label (the display's `labels`, else each thing's own label, name or title, else A and B, or Option 1, 2, ...) and
    its text. A mapping gives left/right, a/b or 1/2 in that order, else its values."""
    if isinstance(value, dict):
        pairs = next(([value[first], value[second]] for first, second in (("left", "right"), ("a", "b"), ("1", "2"))
                      if first in value and second in value), list(value.values()))
    elif isinstance(value, list):
        pairs = list(value)
    else:
        return None
    if len(pairs) < 2:
        return None
    if labels and len(labels) >= len(pairs):
        names = [str(label) for label in labels[:len(pairs)]]
    else:
        defaults = ["A", "B"] if len(pairs) == 2 else [f"Option {number}" for number in range(1, len(pairs) + 1)]
        names = [str(next((entry[key] for key in ("label", "name", "title") if isinstance(entry, dict)
                           and entry.get(key)), defaults[number])) for number, entry in enumerate(pairs)]
    texts = [as_line(next((entry[key] for key in SAYINGS if entry.get(key) not in (None, "")), entry))
             if isinstance(entry, dict) else as_line(entry) for entry in pairs]
    return [{"label": name, "text": text} for name, text in zip(names, texts, strict=True)]


def read_records(data: bytes, *, name: str, settings: Items, format: str | None = None,
                 corpora: bool = True) -> list[Record]:
    return _records(read_rows(data, name=name, format=format, corpora=corpora), name, settings)


def read_rows(data: bytes, *, name: str, format: str | None = None, corpora: bool = True) -> list[tuple[int, Any]]:
    """The rows of a JSON array, JSON Lines, CSV, TSV or (with `corpora`: a design's items, not another tool's
    files) known XML file, each with the line it starts on (0 when unknown)."""
    text = decode_utf8(data, file=name, error=ItemsError)
    kind = format or name.rsplit(".", 1)[-1].lower()
    formats = FORMATS if corpora else tuple(known for known in FORMATS if known != "xml")
    if kind not in formats:
        listed = ", ".join(f".{known}" for known in formats[:-1])
        raise ItemsError(f"cannot tell the format from the name; use {listed} or .{formats[-1]}", file=name)
    if not text.strip():
        raise ItemsError("is empty; it needs at least one record", file=name)
    if kind == "xml":
        return _xml(data, name)
    try:
        rows = _tabular(text, name, "\t" if kind == "tsv" else ",") if kind in ("csv", "tsv") else _json(text, name)
    except RecursionError:
        raise ItemsError(TOO_DEEP, file=name) from None
    for line, row in rows:
        if _depth(row) > MAX_DEPTH:
            raise ItemsError(TOO_DEEP, file=name, line=line or None)
    return rows


def _depth(value: Any) -> int:
    """How many lists and objects deep a value goes (counted without recursing, so any depth is measured)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _xml(data: bytes, name: str) -> list[tuple[int, Any]]:
    root = root_tag(data, file=name, error=ItemsError)
    if root not in XML_ITEMS:
        known = " or ".join(f"<{tag}>" for tag in XML_ITEMS) or "none here"
        raise ItemsError(f"an XML file of items is a corpus whose root is {known}; this one's is <{root}>: give "
                         f"the items as JSON Lines, CSV or TSV", file=name)
    try:
        return XML_ITEMS.get(root)(data, name)
    except ItemsError:
        raise
    except InputError as error:  # the corpus reader's own kind, said as the items' error
        raise ItemsError(error.message, file=name, line=error.line, field=error.field) from None


def _json(text: str, name: str) -> list[tuple[int, Any]]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            found = json.loads(text)
        except json.JSONDecodeError as error:
            raise ItemsError(f"not valid JSON: {error.msg}", file=name, line=error.lineno) from None
        lines = _array_lines(text, len(found))
        return list(zip(lines, found, strict=True))
    return _stream(text, name)


def _stream(text: str, name: str) -> list[tuple[int, Any]]:
    """JSON Lines, and objects written one after another over several lines each (pretty-printed "JSON
    Lines", which exported data often is): each read whole, with the line it starts on."""
    decoder, at, line, counted = json.JSONDecoder(), 0, 1, 0
    rows: list[tuple[int, Any]] = []
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text):
            return rows
        line, counted = line + text.count("\n", counted, at), at
        start = at
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            where = f"column {error.colno}" if error.lineno == line else f"line {error.lineno}, column {error.colno}"
            raise ItemsError(f"not a JSON object: {error.msg} ({where}); one object a line (JSON Lines), or one "
                             f"JSON array", file=name, line=line) from None
        except RecursionError:
            raise ItemsError(TOO_DEEP, file=name, line=line) from None
        if at - start > MAX_LINE:
            raise ItemsError(f"the record is {at - start:,} characters; a record is at most {MAX_LINE:,}", file=name,
                             line=line)
        rows.append((line, value))


def _array_lines(text: str, count: int) -> list[int]:
    """The line each top-level element of a JSON array starts on, for the error messages."""
    lines, depth, in_string, escaped, line = [], 0, False, False, 1
    expecting = False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            escaped = not escaped and char == "\\"
            if char == '"' and not escaped:
                in_string = False
            continue
        if depth == 1 and expecting and not char.isspace() and char not in ",]":
            lines.append(line)
            expecting = False
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth == 1:
                expecting = True
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            expecting = True
    return (lines + [0] * count)[:count]


def _tabular(text: str, name: str, delimiter: str) -> list[tuple[int, Any]]:
    allow_fields(MAX_LINE + 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as error:
        raise ItemsError(f"has no header row ({error})", file=name, line=1) from None
    header = [column.strip() for column in header]
    rows = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise ItemsError(f"has {len(row)} columns, the header has {len(header)}; quote cells that hold "
                                 f"the delimiter", file=name, line=reader.line_num)
            size = sum(map(len, row))
            if size > MAX_LINE:
                raise ItemsError(f"the record is {size:,} characters; a record is at most {MAX_LINE:,}", file=name,
                                 line=reader.line_num)
            rows.append((reader.line_num, {column: _cell(cell) for column, cell in zip(header, row, strict=True)}))
    except csv.Error as error:
        raise ItemsError(f"cannot read it as {'TSV' if delimiter == chr(9) else 'CSV'}: {error}", file=name,
                         line=reader.line_num) from None
    return rows


def _cell(cell: str) -> Any:
    """A CSV cell; one holding a JSON list or object (a pair to compare, a known answer) is read as one."""
    stripped = cell.strip()
    if stripped[:1] in "[{" and stripped[-1:] in "]}":
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return cell
    return cell


def _records(rows: list[tuple[int, Any]], name: str, settings: Items) -> list[Record]:
    if not rows:
        raise ItemsError("has no records", file=name)
    records: list[Record] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        if not isinstance(row, dict):
            raise ItemsError(f"is a {type(row).__name__}, not an object with {settings.id_key!r} and "
                             f"{settings.text_key!r}", file=name, line=line or None)
        for key in (settings.id_key, settings.text_key):
            what = "id" if key == settings.id_key else "text"
            if key not in row or row[key] is None or (what == "id" and str(row[key]).strip() == ""):
                raise ItemsError(f"has no {key!r} field; the design reads the {what} from it (items.{what}_key); its "
                                 f"fields are {', '.join(map(str, list(row)[:10]))}", file=name, line=line or None)
        record_id = str(row[settings.id_key]).strip()
        if record_id in seen:
            raise ItemsError(f"the id {record_id!r} is used already on line {seen[record_id]}; ids must be unique",
                             file=name, line=line or None)
        seen[record_id] = line
        text = row[settings.text_key]
        fields = {key: value for key, value in row.items() if key not in (settings.id_key, settings.text_key)}
        if isinstance(text, list | dict):
            # Two or more texts under the text key (what a pairwise or best-worst scheme compares): they are
            # the item's field of that name, and its text is empty.
            fields[settings.text_key], text = text, ""
        gold = fields.pop(settings.gold_key, None) if settings.gold_key else None
        group = str(fields.get(settings.group_key, "")) if settings.group_key else ""
        record = Record(id=record_id, text=str(text), fields=fields, gold=gold, group=group, line=line, file=name)
        try:
            highlight(record, settings)
        except InputError as error:
            raise ItemsError(error.message, file=name, line=line or None, field=error.field) from None
        records.append(record)
    return records


def highlighted(record: Record | SchemeRecord, settings: Items) -> tuple[str, str, str] | None:
    """The text cut around its highlight (before, highlighted, after), or None when it has none."""
    try:
        place = highlight(record, settings)
    except ValueError:
        place = None  # an item changed since it was read: shown plain rather than marked in the wrong place
    if place is None:
        return None
    return record.text[:place[0]], record.text[place[0]:place[1]], record.text[place[1]:]


def highlight(record: Record | SchemeRecord, settings: Items) -> tuple[int, int] | None:
    """Where the item's highlight (items.highlight_key, e.g. an entity) stands in its text: at the offset of
    highlight_start_key, or else its first place as whole words ("Iraq" not inside "Iraqi"). None when the
    design or the item has none; an InputError when it is not in the text where it is said to be."""
    wanted = record.fields.get(settings.highlight_key) if settings.highlight_key else None
    if wanted in (None, ""):
        return None
    wanted = str(wanted)
    offset = record.fields.get(settings.highlight_start_key) if settings.highlight_start_key else None
    if offset not in (None, ""):
        start = int(offset) if str(offset).lstrip("-").isdecimal() else -1
        if start < 0 or record.text[start:start + len(wanted)] != wanted:
            raise InputError(f"{wanted!r} is not at offset {offset} of the text of {record.id!r}; give the offset "
                             f"of its first character (0 is the first)", field=settings.highlight_start_key)
        return start, start + len(wanted)
    found = re.search(r"(?<!\w)" + re.escape(wanted) + r"(?!\w)", record.text)
    if found is None:
        raise InputError(f"{wanted!r} is not in the text of {record.id!r} as whole words; the highlight marks "
                         f"words of the text", field=settings.highlight_key)
    return found.start(), found.end()
