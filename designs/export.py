"""A design batch's answers and labels out: every answer in long form (item, annotator, scheme, value, time),
the aggregated labels with their per-scheme agreement, as CSV, JSON Lines, Parquet and a Hugging Face dataset
folder whose card lists the schemes and their labels."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from core.semeval import spreadsheet_csv
from designs.aggregate import Answer, SchemeResult, aggregate
from designs.models import batch_design
from designs.schemes import SCHEME_TYPES
from designs.task_type import record
from hits.models import Assignment, Batch, Item

FORMATS = ("csv", "jsonl", "parquet", "hf")
COUNTED = (Assignment.State.SUBMITTED, Assignment.State.APPROVED)  # a rejected assignment's answers are not data


def batch_answers(batch: Batch) -> tuple[list[dict[str, Any]], dict[int, Item]]:
    """Every stored answer of the batch's counted assignments as long-form rows (workers as pseudonyms
    W1, W2, ... in the order they first answered), and the batch's items by id."""
    items = {item.pk: item for item in Item.objects.filter(batch=batch)}
    ids = {pk: record(item).id for pk, item in items.items()}  # read once, not once per answer
    assignments = (Assignment.objects.filter(hit__batch=batch, state__in=COUNTED).exclude(answers=None)
                   .order_by("submitted", "pk").values("pk", "worker_id", "submitted", "answers", "state"))
    pseudonyms: dict[int, str] = {}
    rows = []
    for assignment in assignments:
        worker = pseudonyms.setdefault(assignment["worker_id"], f"W{len(pseudonyms) + 1}")
        for item_id, answer in (assignment["answers"] or {}).items():
            item = items.get(int(item_id))
            if item is None or not isinstance(answer, dict):
                continue
            for scheme, value in answer.items():
                rows.append({"item": ids[item.pk], "annotator": worker, "scheme": scheme, "value": value,
                             "time": assignment["submitted"].isoformat() if assignment["submitted"] else "",
                             "assignment": assignment["pk"], "gold": item.is_gold})
    return rows, items


def batch_aggregate(batch: Batch) -> tuple[dict[str, SchemeResult], list[dict[str, Any]]]:
    results, rows, _ = _aggregated(batch)
    return results, rows


def _aggregated(batch: Batch) -> tuple[dict[str, SchemeResult], list[dict[str, Any]], dict[int, Item]]:
    design, _ = batch_design(batch.pk)
    rows, items = batch_answers(batch)
    answers = [Answer(row["item"], row["annotator"], row["scheme"], row["value"]) for row in rows if not row["gold"]]
    by_record = {found.id: found for found in map(record, items.values())}
    compared = {}
    for scheme in design.annotation_schemes:
        key = getattr(scheme, "items_key", None)
        if key:
            for record_id, found in by_record.items():
                if isinstance(found.fields.get(key), list):
                    compared[record_id] = [str(entry) for entry in found.fields[key]]
    results = aggregate(design, answers, texts={rid: found.text for rid, found in by_record.items()},
                        compared=compared)
    return results, rows, items


def export_batch(*, batch: Batch, out: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write the batch's export into `out` (made whole in a temporary folder first, so a failure leaves no half
    export). Returns the files written."""
    unknown = [name for name in formats if name not in FORMATS]
    if unknown:
        raise ValueError(f"unknown export format {unknown[0]!r}; use {', '.join(FORMATS)}")
    design, _ = batch_design(batch.pk)
    results, rows, items = _aggregated(batch)
    labels = []
    for item in sorted(items.values(), key=lambda found: found.pk):
        if item.is_gold:
            continue
        found = record(item)
        labels.append({"id": found.id, "text": found.text,
                       **{name: result.items.get(found.id) for name, result in results.items()}})
    agreement = {name: {key: value for key, value in result.as_json().items() if key != "items"}
                 for name, result in results.items()}
    out = Path(out)
    temporary = Path(tempfile.mkdtemp(prefix=".export-", dir=out.parent if out.parent.exists() else None))
    try:
        written = []
        # One type a column (Parquet needs it): a value is its text, or its JSON when it is not a string.
        answers = [{**row, "value": row["value"] if isinstance(row["value"], str) else json.dumps(row["value"])}
                   for row in rows]
        flat_labels = [{key: _cell(value) for key, value in row.items()} for row in labels]
        if "csv" in formats:
            written += [_csv(temporary / "answers.csv", answers), _csv(temporary / "labels.csv", flat_labels)]
        if "jsonl" in formats:
            written += [_jsonl(temporary / "answers.jsonl", rows), _jsonl(temporary / "labels.jsonl", labels)]
        if "parquet" in formats:
            import pandas as pd

            for name, data in (("answers", answers), ("labels", flat_labels)):
                pd.DataFrame(data).to_parquet(temporary / f"{name}.parquet", index=False)
                written.append(temporary / f"{name}.parquet")
        if "hf" in formats:
            written += _hf_folder(temporary / "hf", design, labels, rows, agreement)
        (temporary / "agreement.json").write_text(json.dumps(agreement, indent=2, sort_keys=True) + "\n")
        written.append(temporary / "agreement.json")
        if out.exists():
            shutil.rmtree(out)
        temporary.rename(out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return [out / path.relative_to(temporary) for path in written]


def _cell(value: Any) -> Any:
    """A value for a flat table: lists and mappings as JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, list | dict) else value


def _csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    # Opened in a spreadsheet, a cell starting with = + - @ would run as a formula: spreadsheet_csv neutralizes it.
    text = spreadsheet_csv(list(rows[0]), [list(row.values()) for row in rows]) if rows else ""
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows),
                    encoding="utf-8")
    return path


def _hf_folder(folder: Path, design, labels, rows, agreement) -> list[Path]:
    (folder / "data").mkdir(parents=True)
    written = [_jsonl(folder / "data" / "labels.jsonl", labels), _jsonl(folder / "data" / "answers.jsonl", rows)]
    card = folder / "README.md"
    card.write_text(dataset_card(design, len(labels), len(rows), agreement), encoding="utf-8")
    return [*written, card]


def dataset_card(design, items: int, answers: int, agreement: dict[str, Any]) -> str:
    """The Hugging Face dataset card: YAML metadata (two configs, labels and answers) and the schemes."""
    lines = ["---", "configs:", "- config_name: labels", "  data_files: data/labels.jsonl", "  default: true",
             "- config_name: answers", "  data_files: data/answers.jsonl", "---", "",
             f"# {design.title}", ""]
    if design.description:
        lines += [design.description, ""]
    lines += [f"{items} items; {answers} answers (one row per item, annotator and scheme in `answers`).", "",
              "## Schemes", "", "| scheme | type | question | labels | aggregation | Krippendorff's alpha |",
              "| --- | --- | --- | --- | --- | --- |"]
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.answers:
            continue
        found = agreement.get(scheme.name, {})
        labels = kind.card_labels(scheme)
        alpha = found.get("alpha")
        lines.append(f"| {scheme.name} | {scheme.annotation_type} | {_md(scheme.description)} | {_md(labels)} | "
                     f"{found.get('method', '-')} | {'-' if alpha is None else format(alpha, '.3f')} |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
