"""The released SemEval-2020 Task 5 file formats, read and written. No Django here.

Writers reproduce the released files byte for byte: the csv module's minimal
quoting, CRLF line ends, end-inclusive character offsets, `{}` and -1/-1 for a
missing consequent. The released Subtask-1 file has no line end after its last
row and the Subtask-2 file has one; each writer follows its file.

The SemEval CSVs are written as released, without formula escaping, because
code reads them, and a sentence that starts with "=" must stay that sentence.
The spreadsheet CSV (`spreadsheet_csv`) is for people opening exports in
Excel or LibreOffice and neutralizes cells that a spreadsheet would run as a
formula (a leading =, +, -, @, tab or carriage return gets a leading ').
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Any

from core.csvfields import allow_fields
from core.errors import InputError
from core.spans import SpanError, Spans, check_spans

SUBTASK1 = ("sentenceID", "gold_label", "sentence")
SUBTASK1_PRED = ("sentenceID", "pred_label")
SUBTASK2 = ("sentenceID", "sentence", "antecedent", "consequent", "antecedent_startid", "antecedent_endid",
            "consequent_startid", "consequent_endid")
SUBTASK2_PRED = ("sentenceID", "antecedent_startid", "antecedent_endid", "consequent_startid", "consequent_endid")
NO_CONSEQUENT = "{}"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

Path = str | PathLike[str]
Row = dict[str, str]


class SemEvalFileError(InputError):
    """A released-format file that cannot be read; the message names file, line and field."""


# --- reading -------------------------------------------------------------------------

# Longest sentence id kept (the released ids are short numbers); longer ones are refused by line.
MAX_ID_LENGTH = 100
# A released sentence is short; a field may still be long, and the csv module's own limit is 131,072.
MAX_FIELD = 10_000_000


def read_rows(path: Path, columns: Sequence[str]) -> list[tuple[int, Row]]:
    """[(line, row dict)] of a CSV that must have `columns`; errors name the file, line and field.

    A byte-order mark is accepted; a folder, a ragged row, a NUL, an empty or over-long id and a
    repeated id are refused by line, never as a traceback.
    """
    allow_fields(MAX_FIELD)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle, strict=True)
            header = reader.fieldnames or []
            missing = [column for column in columns if column not in header]
            if missing:
                raise SemEvalFileError(f"missing column(s) {', '.join(missing)}; expected {','.join(columns)}",
                                       file=path, line=1)
            rows = []
            seen: dict[str, int] = {}
            start = reader.line_num
            for row in reader:
                line, start = start + 1, reader.line_num
                _check_row(path, line, row, len(header))
                key = row["sentenceID"]
                if key in seen:
                    raise SemEvalFileError(f"sentenceID {key} repeats line {seen[key]}", file=path, line=line)
                seen[key] = line
                rows.append((line, row))
    except UnicodeDecodeError as error:
        raise SemEvalFileError(f"invalid UTF-8 at byte {error.start}; re-encode the file as UTF-8",
                               file=path) from None
    except FileNotFoundError:
        raise SemEvalFileError("no such file", file=path) from None
    except IsADirectoryError:
        raise SemEvalFileError("is a folder; give the CSV file itself", file=path) from None
    except csv.Error as error:
        raise SemEvalFileError(f"not CSV ({error}); a quote may be left open", file=path,
                               line=reader.line_num) from None
    if not rows:
        raise SemEvalFileError("no rows", file=path)
    return rows


def _check_row(path: Path, line: int, row: dict[Any, Any], width: int) -> None:
    if None in row or any(value is None for value in row.values()):
        fields = width + len(row.get(None) or []) - sum(value is None for value in row.values())
        raise SemEvalFileError(f"{fields} fields where the header has {width}", file=path, line=line)
    for field, value in row.items():
        if "\x00" in value:
            raise SemEvalFileError("contains a NUL character; remove it", file=path, line=line, field=field)
    key = row.get("sentenceID", "")
    if not key.strip():
        raise SemEvalFileError("is empty", file=path, line=line, field="sentenceID")
    if len(key) > MAX_ID_LENGTH:
        raise SemEvalFileError(f"is {len(key):,} characters long; ids are at most {MAX_ID_LENGTH}", file=path,
                               line=line, field="sentenceID")
    if "sentence" in row and not row["sentence"].strip():
        raise SemEvalFileError("is empty", file=path, line=line, field="sentence")


def _int(path: Path, line: int, row: Row, field: str) -> int:
    try:
        return int(row[field])
    except (TypeError, ValueError):
        raise SemEvalFileError(f"{row[field]!r} is not a whole number", file=path, line=line, field=field) from None


def _label(path: Path, line: int, row: Row, field: str) -> int:
    value = _int(path, line, row, field)
    if value not in (0, 1):
        raise SemEvalFileError(f"is {value}; use 0 or 1", file=path, line=line, field=field)
    return value


def read_subtask1_rows(path: Path) -> list[tuple[str, int, str]]:
    """[(sentence id, label, sentence)] of a Subtask-1 gold file, labels checked."""
    return [(row["sentenceID"], _label(path, line, row, "gold_label"), row["sentence"])
            for line, row in read_rows(path, SUBTASK1)]


def read_subtask1(path: Path, label_column: str = "gold_label") -> dict[str, int]:
    if label_column == "gold_label":
        return {key: label for key, label, _ in read_subtask1_rows(path)}
    return {row["sentenceID"]: _label(path, line, row, label_column) for line, row in read_rows(path, SUBTASK1_PRED)}


def _spans(path: Path, line: int, row: Row) -> Spans:
    a_start, a_end, c_start, c_end = (_int(path, line, row, field) for field in SUBTASK2_PRED[1:])
    return Spans(a_start, a_end, c_start, c_end)


def read_subtask2_gold(path: Path) -> dict[str, tuple[str, Spans]]:
    gold = {}
    for line, row in read_rows(path, SUBTASK2):
        sentence, spans = row["sentence"], _spans(path, line, row)
        try:
            check_spans(sentence, spans)
        except SpanError as error:
            raise SemEvalFileError(error.message, file=path, line=line) from None
        if sentence[spans.antecedent_start:spans.antecedent_end + 1] != row["antecedent"]:
            raise SemEvalFileError("is not sentence[antecedent_startid:antecedent_endid+1]", file=path, line=line,
                                   field="antecedent")
        if spans.consequent_start == -1:
            if row["consequent"] != NO_CONSEQUENT:
                raise SemEvalFileError(f"consequent ids are -1 but consequent is not {NO_CONSEQUENT}", file=path,
                                       line=line, field="consequent")
        elif sentence[spans.consequent_start:spans.consequent_end + 1] != row["consequent"]:
            raise SemEvalFileError("is not sentence[consequent_startid:consequent_endid+1]", file=path, line=line,
                                   field="consequent")
        gold[row["sentenceID"]] = (sentence, spans)
    return gold


def read_subtask2_predictions(path: Path) -> dict[str, Spans]:
    return {row["sentenceID"]: _spans(path, line, row) for line, row in read_rows(path, SUBTASK2_PRED)}


# --- writing ---------------------------------------------------------------------------

def _csv_text(header: Sequence[str], rows: Iterable[Sequence[object]], final_line_end: bool) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    text = buffer.getvalue()
    return text if final_line_end else text[:-2]


def subtask1_csv(rows: Iterable[tuple[str, int, str]], *, final_line_end: bool = True) -> str:
    """rows: (sentence id, label, sentence) → the released Subtask-1 CSV text. The released files differ in
    whether their last row ends with a line break (`ends_with_line_end` tells which a file does)."""
    return _csv_text(SUBTASK1, ([key, label, sentence] for key, label, sentence in rows),
                     final_line_end=final_line_end)


def subtask2_row(key: str, sentence: str, spans: Spans) -> list[object]:
    consequent = (NO_CONSEQUENT if spans.consequent_start == -1
                  else sentence[spans.consequent_start:spans.consequent_end + 1])
    return [key, sentence, sentence[spans.antecedent_start:spans.antecedent_end + 1], consequent, *spans.as_tuple()]


def subtask2_csv(rows: Iterable[tuple[str, str, Spans]], *, final_line_end: bool = True) -> str:
    """rows: (sentence id, sentence, Spans) → the released Subtask-2 CSV text."""
    return _csv_text(SUBTASK2, (subtask2_row(*row) for row in rows), final_line_end=final_line_end)


def ends_with_line_end(path: str | PathLike[str]) -> bool:
    """Whether a file's last row ends with a line break: the released files do not agree, and an import
    keeps each file's way so that its export gives the file back byte for byte."""
    with open(path, "rb") as handle:
        handle.seek(0, io.SEEK_END)
        if handle.tell() == 0:
            return False
        handle.seek(-1, io.SEEK_END)
        return handle.read(1) == b"\n"


def spreadsheet_cell(value: object) -> str:
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def spreadsheet_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A CSV for spreadsheets: every text cell that a spreadsheet would evaluate is neutralized."""
    return _csv_text(header, ([spreadsheet_cell(cell) if isinstance(cell, str) else cell for cell in row]
                              for row in rows), final_line_end=True)
