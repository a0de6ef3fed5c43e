"""Streaming readers for corpus files. No Django here.

Each reader yields, in file order, either a `Record` (one document) or a
`BadRecord` naming the file, the line and what to do. Nothing is read whole:
a JSONL or CSV file of any size is walked line by line, and a single line
longer than `max_bytes` is skipped without being held in memory.
"""

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from core.csvfields import allow_fields
from core.errors import InputError

# The paper's domains, offered as suggestions: a corpus may name any other ("technology", "sports", ...).
# "mixed": text from several of the three without a domain per document, e.g. the released SemEval sentences.
KNOWN_DOMAINS = ("finance", "politics", "healthcare", "mixed")
MAX_DOMAIN_LENGTH = 40  # Document.domain
# The longest document id the database keeps (Document.external_id).
MAX_ID_LENGTH = 200
FORMATS = ("jsonl", "csv", "txt-dir")
DEFAULT_MAX_BYTES = 2_000_000
_READ_CHUNK = 1 << 16


@dataclass(frozen=True)
class Record:
    file: str
    line: int
    external_id: str
    domain: str
    text: str
    title: str = ""
    source: str = ""


@dataclass(frozen=True)
class BadRecord:
    file: str
    line: int
    message: str

    def __str__(self):
        return f"{self.file}:{self.line}: {self.message}"


class CorpusFileError(InputError):
    """The file as a whole cannot be read (missing, empty folder, bad header)."""


def detect_format(path):
    path = Path(path)
    if path.is_dir():
        return "txt-dir"
    if path.suffix.lower() == ".csv":
        return "csv"
    return "jsonl"


def domain_problem(domain, allowed=()):
    """Why `domain` cannot be a document's domain, or None. `allowed`: the project's list (empty: any)."""
    if not isinstance(domain, str):
        return f"domain {domain!r} is not text; write a word such as finance"
    if len(domain) > MAX_DOMAIN_LENGTH:
        return f"domain {domain[:20]!r}... is {len(domain)} characters long; use at most {MAX_DOMAIN_LENGTH}"
    if any(not char.isprintable() for char in domain):
        return f"domain {domain!r} has a control character; write it as plain text"
    if allowed and domain not in allowed:
        return (f"domain {domain!r} is not one of the accepted domains ({', '.join(allowed)}); fix the row, or "
                f"add the domain to the accepted ones")
    return None


def read_records(path, fmt=None, *, domain=None, text_column="text", id_column="id",
                 max_bytes=DEFAULT_MAX_BYTES, domains=()):
    path = Path(path)
    if not path.exists():
        raise CorpusFileError(f"{path}: no such file or folder")
    fmt = fmt or detect_format(path)
    if fmt in ("jsonl", "csv") and path.is_dir():
        raise CorpusFileError(f"{path}: is a folder; a folder of .txt files is read with --format txt-dir")
    if fmt == "txt-dir" and not path.is_dir():
        raise CorpusFileError(f"{path}: is a file; --format txt-dir reads a folder of .txt files")
    if fmt == "jsonl":
        return _read_jsonl(path, domain, max_bytes, domains)
    if fmt == "csv":
        return _read_csv(path, domain, text_column, id_column, max_bytes, domains)
    if fmt == "txt-dir":
        return _read_txt_dir(path, domain, max_bytes, domains)
    raise CorpusFileError(f"{path}: unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def _bounded_lines(handle, max_bytes):
    """Yield (line_number, bytes or None); None marks a line over `max_bytes`."""
    number = 0
    while True:
        line = handle.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            # Skip the rest of the oversized line in bounded reads.
            while line and not line.endswith(b"\n"):
                line = handle.readline(_READ_CHUNK)
            yield number, None
        else:
            yield number, line


def _record(file, line, fields, default_domain, allowed=()):
    """Validate one document's fields; return a Record or a BadRecord.

    Everything a database could refuse is refused here, by name, so that one
    bad document never fails the write of the good ones beside it.
    """
    external_id = fields.get("id")
    if external_id is None or str(external_id).strip() == "":
        return BadRecord(file, line, "missing field 'id': every document needs a unique id")
    external_id = str(external_id).strip()
    if len(external_id) > MAX_ID_LENGTH:
        return BadRecord(file, line, f"id {external_id[:40]!r}... is {len(external_id):,} characters long; "
                                     f"use ids of at most {MAX_ID_LENGTH}")
    text = fields.get("text")
    if not isinstance(text, str):
        return BadRecord(file, line, f"document {external_id!r}: missing field 'text' (a string)")
    if not text.strip():
        return BadRecord(file, line, f"document {external_id!r}: field 'text' is empty")
    for name in ("id", "text", "title", "source"):
        value = external_id if name == "id" else fields.get(name)
        if not isinstance(value, str):
            continue
        if "\x00" in value:
            # PostgreSQL cannot store NUL in text; no news text has one on purpose.
            return BadRecord(file, line, f"document {external_id!r}: field {name!r} contains a NUL character; "
                                         f"remove it")
        surrogate = next((i for i, char in enumerate(value) if "\ud800" <= char <= "\udfff"), None)
        if surrogate is not None:
            return BadRecord(file, line, f"document {external_id!r}: field {name!r} has an unpaired surrogate "
                                         f"(\\u{ord(value[surrogate]):04x}) at character {surrogate}; write the "
                                         f"character itself or a complete surrogate pair")
    domain = fields.get("domain") or default_domain
    if isinstance(domain, str):
        domain = domain.strip()
    if not domain:
        return BadRecord(file, line, f"document {external_id!r}: missing field 'domain'; add it or pass --domain")
    problem = domain_problem(domain, allowed)
    if problem:
        return BadRecord(file, line, f"document {external_id!r}: {problem}")
    return Record(file, line, external_id, domain, text,
                  title=str(fields.get("title") or ""), source=str(fields.get("source") or ""))


def _too_long(file, line, max_bytes):
    return BadRecord(file, line,
                     f"line is longer than {max_bytes:,} bytes; split the document or raise --max-bytes")


def _read_jsonl(path, domain, max_bytes, allowed=()):
    file = str(path)
    seen_any = False
    with open(path, "rb") as handle:
        for number, raw in _bounded_lines(handle, max_bytes):
            if raw is None:
                seen_any = True
                yield _too_long(file, number, max_bytes)
                continue
            if not raw.strip():
                continue
            seen_any = True
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte-order mark, as some editors write one
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield BadRecord(file, number,
                                f"invalid UTF-8 at byte {error.start} of the line; re-encode the file as UTF-8")
                continue
            try:
                fields = json.loads(text)
            except json.JSONDecodeError as error:
                yield BadRecord(file, number, f"not valid JSON ({error.msg} at column {error.colno})")
                continue
            if not isinstance(fields, dict):
                yield BadRecord(file, number, "expected a JSON object with id, domain and text")
                continue
            yield _record(file, number, fields, domain, allowed)
    if not seen_any:
        raise CorpusFileError(f"{file}: the file is empty")


def _read_csv(path, domain, text_column, id_column, max_bytes, allowed=()):
    file = str(path)
    allow_fields(max_bytes + 1)  # a document may be as long as max_bytes
    with open(path, "rb") as handle:
        # surrogateescape keeps bad bytes visible per row instead of aborting the file.
        lines = io.TextIOWrapper(handle, encoding="utf-8", errors="surrogateescape", newline="")
        # strict: a quote left open fails at the end of the file instead of swallowing the rest silently.
        reader = csv.reader(lines, strict=True)
        try:
            header = next(reader)
        except StopIteration:
            raise CorpusFileError(f"{file}: the file is empty") from None
        except csv.Error as error:
            raise CorpusFileError(f"{file}:1: the header line is not CSV ({error})") from None
        header = [name.strip().lstrip("\ufeff") for name in header]
        if text_column not in header:
            raise CorpusFileError(f"{file}:1: no column {text_column!r} (columns: {', '.join(header)}); "
                                  f"name the text column with --text-column")
        line = reader.line_num
        rows = iter(reader)
        while True:
            try:
                row = next(rows)
            except StopIteration:
                return
            except csv.Error as error:
                if "end of data" in str(error):
                    yield BadRecord(file, line + 1, f"a quote opened on line {line + 1} is never closed, so the "
                                                    f"rest of the file would be one field; close the quote")
                else:
                    yield BadRecord(file, line + 1, f"not CSV ({error}); check the quotes of this row")
                return
            start_line, line = line + 1, reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                if line > start_line and any("\n" in cell for cell in row):
                    yield BadRecord(file, start_line, f"a quote opened on line {start_line} is not closed until "
                                                      f"line {line} ({len(row)} fields where the header has "
                                                      f"{len(header)}); close the quote")
                else:
                    yield BadRecord(file, start_line, f"{len(row)} fields where the header has {len(header)}")
                continue
            fields = dict(zip(header, row, strict=True))
            if any(_has_bad_bytes(value) for value in fields.values()):
                yield BadRecord(file, start_line, "invalid UTF-8; re-encode the file as UTF-8")
                continue
            if len(fields[text_column].encode("utf-8")) > max_bytes:
                yield _too_long(file, start_line, max_bytes)
                continue
            fields["text"] = fields.pop(text_column)
            if id_column in fields:
                fields["id"] = fields.pop(id_column)
            else:
                fields["id"] = f"row-{start_line}"
            yield _record(file, start_line, fields, domain, allowed)


def _has_bad_bytes(value):
    return any("\udc80" <= char <= "\udcff" for char in value)


def _read_txt_dir(path, domain, max_bytes, allowed=()):
    files = sorted(p for p in path.rglob("*.txt") if p.is_file())
    if not files:
        raise CorpusFileError(f"{path}: the folder has no .txt files")
    for file_path in files:
        file = str(file_path)
        external_id = file_path.relative_to(path).with_suffix("").as_posix()
        if file_path.stat().st_size > max_bytes:
            yield BadRecord(file, 1, f"file is larger than {max_bytes:,} bytes; split it or raise --max-bytes")
            continue
        raw = file_path.read_bytes()
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            line = raw.count(b"\n", 0, error.start) + 1
            yield BadRecord(file, line, "invalid UTF-8; re-encode the file as UTF-8")
            continue
        yield _record(file, 1, {"id": external_id, "text": text}, domain, allowed)
