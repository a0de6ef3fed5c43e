"""The released SemEval-2020 Task 5 file formats, read and written. No Django here.

Writers reproduce the released files byte for byte: the csv module's minimal
quoting, CRLF line ends, end-inclusive character offsets, `{}` and -1/-1 for a
missing consequent. The released Subtask-1 file has no line end after its last
row and the Subtask-2 file has one; each writer follows its file.

The SemEval CSVs are written as released, without formula escaping, because
code reads them, and a sentence that starts with "=" must stay that sentence.
The spreadsheet CSV (`write_spreadsheet_csv`) is for people opening exports in
Excel or LibreOffice and neutralizes cells that a spreadsheet would run as a
formula (a leading =, +, -, @, tab or carriage return gets a leading ').
"""

import csv
import io

from datasets.scorer import ScoreError, Spans

SUBTASK1 = ("sentenceID", "gold_label", "sentence")
SUBTASK1_PRED = ("sentenceID", "pred_label")
SUBTASK2 = ("sentenceID", "sentence", "antecedent", "consequent", "antecedent_startid", "antecedent_endid",
            "consequent_startid", "consequent_endid")
SUBTASK2_PRED = ("sentenceID", "antecedent_startid", "antecedent_endid", "consequent_startid", "consequent_endid")
NO_CONSEQUENT = "{}"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# --- reading -------------------------------------------------------------------------

def read_rows(path, columns):
    """[(line, row dict)] of a CSV that must have `columns`; errors name the file and line."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            missing = [column for column in columns if column not in header]
            if missing:
                raise ScoreError(f"{path}:1: missing column(s) {', '.join(missing)}; expected {','.join(columns)}")
            rows = []
            seen = {}
            for row in reader:
                key = row["sentenceID"]
                if key in seen:
                    raise ScoreError(f"{path}:{reader.line_num}: sentenceID {key} repeats line {seen[key]}")
                seen[key] = reader.line_num
                rows.append((reader.line_num, row))
    except UnicodeDecodeError as error:
        raise ScoreError(f"{path}: invalid UTF-8 at byte {error.start}; re-encode the file as UTF-8") from None
    except FileNotFoundError:
        raise ScoreError(f"{path}: no such file") from None
    if not rows:
        raise ScoreError(f"{path}: no rows")
    return rows


def _int(path, line, row, field):
    try:
        return int(row[field])
    except (TypeError, ValueError):
        raise ScoreError(f"{path}:{line}: {field} {row[field]!r} is not a whole number") from None


def _label(path, line, row, field):
    value = _int(path, line, row, field)
    if value not in (0, 1):
        raise ScoreError(f"{path}:{line}: {field} is {value}; use 0 or 1")
    return value


def read_subtask1_rows(path):
    """[(sentence id, label, sentence)] of a Subtask-1 gold file, labels checked."""
    return [(row["sentenceID"], _label(path, line, row, "gold_label"), row["sentence"])
            for line, row in read_rows(path, SUBTASK1)]


def read_subtask1(path, label_column="gold_label"):
    if label_column == "gold_label":
        return {key: label for key, label, _ in read_subtask1_rows(path)}
    return {row["sentenceID"]: _label(path, line, row, label_column) for line, row in read_rows(path, SUBTASK1_PRED)}


def _spans(path, line, row):
    return Spans(*(_int(path, line, row, field) for field in SUBTASK2_PRED[1:]))


def read_subtask2_gold(path):
    gold = {}
    for line, row in read_rows(path, SUBTASK2):
        sentence, spans = row["sentence"], _spans(path, line, row)
        check_spans(sentence, spans, where=f"{path}:{line}")
        if sentence[spans.antecedent_start:spans.antecedent_end + 1] != row["antecedent"]:
            raise ScoreError(f"{path}:{line}: antecedent text is not sentence[antecedent_startid:antecedent_endid+1]")
        if spans.consequent_start == -1:
            if row["consequent"] != NO_CONSEQUENT:
                raise ScoreError(f"{path}:{line}: consequent ids are -1 but consequent is not {NO_CONSEQUENT}")
        elif sentence[spans.consequent_start:spans.consequent_end + 1] != row["consequent"]:
            raise ScoreError(f"{path}:{line}: consequent text is not sentence[consequent_startid:consequent_endid+1]")
        gold[row["sentenceID"]] = (sentence, spans)
    return gold


def read_subtask2_predictions(path):
    return {row["sentenceID"]: _spans(path, line, row) for line, row in read_rows(path, SUBTASK2_PRED)}


def check_spans(sentence, spans, where="spans", allow_overlap=True):
    """Refuse offsets a released file could not hold: out of range, reversed, half missing.

    The released training file has a few rows whose antecedent and consequent
    overlap (row 110 has them equal), so reading allows it; new annotations
    are checked with allow_overlap=False.
    """
    a_start, a_end, c_start, c_end = spans.as_tuple()
    length = len(sentence)
    if not 0 <= a_start <= a_end < length:
        raise ScoreError(f"{where}: antecedent {a_start}..{a_end} is not inside the sentence (0..{length - 1})")
    if (c_start == -1) != (c_end == -1):
        raise ScoreError(f"{where}: consequent {c_start}..{c_end}: both ids are -1 or neither is")
    if c_start != -1:
        if not 0 <= c_start <= c_end < length:
            raise ScoreError(f"{where}: consequent {c_start}..{c_end} is not inside the sentence (0..{length - 1})")
        if not allow_overlap and c_start <= a_end and a_start <= c_end:
            raise ScoreError(f"{where}: antecedent {a_start}..{a_end} and consequent {c_start}..{c_end} overlap")


# --- writing ---------------------------------------------------------------------------

def _csv_text(header, rows, final_line_end):
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    text = buffer.getvalue()
    return text if final_line_end else text[:-2]


def subtask1_csv(rows):
    """rows: (sentence id, label, sentence) → the released Subtask-1 CSV text."""
    return _csv_text(SUBTASK1, ([key, label, sentence] for key, label, sentence in rows), final_line_end=False)


def subtask2_row(key, sentence, spans):
    consequent = (NO_CONSEQUENT if spans.consequent_start == -1
                  else sentence[spans.consequent_start:spans.consequent_end + 1])
    return [key, sentence, sentence[spans.antecedent_start:spans.antecedent_end + 1], consequent, *spans.as_tuple()]


def subtask2_csv(rows):
    """rows: (sentence id, sentence, Spans) → the released Subtask-2 CSV text."""
    return _csv_text(SUBTASK2, (subtask2_row(*row) for row in rows), final_line_end=True)


def spreadsheet_cell(value):
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def spreadsheet_csv(header, rows):
    """A CSV for spreadsheets: every text cell that a spreadsheet would evaluate is neutralized."""
    return _csv_text(header, ([spreadsheet_cell(cell) if isinstance(cell, str) else cell for cell in row]
                              for row in rows), final_line_end=True)
