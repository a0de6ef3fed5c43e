"""A design batch's answers and labels out: every answer in long form (item, annotator, scheme, value, time),
the aggregated labels with their per-scheme agreement, as CSV, JSON Lines, Parquet and a Hugging Face dataset
folder whose card lists the schemes and their labels; and the answers as Potato writes them (potato/)."""

from __future__ import annotations

import csv
import json
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import Q, TextField, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, NullIf

from core.components import component_reporters
from core.items import payload_from_json
from core.semeval import spreadsheet_cell
from designs.aggregate import GLOBAL_METHODS, Annotator, Answer, SchemeResult, scheme_accumulators
from designs.conditions import difference_in_means
from designs.models import ConditionCell, OutsideAnswer, SharedEvent, batch_design
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import Record
from designs.task_type import record_of
from hits.models import Assignment, Batch, Item
from hits.selectors import answers_by_item

FORMATS = ("csv", "jsonl", "parquet", "hf", "potato", "labelstudio")
CHUNK = 2000  # rows read from the database at a time: what a report or an export holds, whatever the batch's size


def answer_rows(batch: Batch, *, outside: Outside = True) -> Iterator[dict[str, Any]]:
    """Every stored answer of the batch's counted assignments as a long-form row (workers as pseudonyms W1, W2, ...
    in the order they first answered), in the order the work came in; then the answers given in another tool
    (annotator "<tool>:<their name there>", no assignment) unless `outside` is False."""
    for worked in worked_items(batch, outside=outside):
        yield from _rows_of(*worked)


def _rows_of(pk: int | None, worker: str | Annotator, submitted: Any, found: Record, gold: bool,
             answer: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for scheme, value in answer.items():
        yield {"item": found.id, "annotator": str(worker), "scheme": scheme, "value": value,
               "time": submitted.isoformat() if submitted else "", "assignment": pk, "gold": gold}


Outside = bool | tuple[str, str]  # every outside answer, none, or one annotator's: (source, annotator)


def _outside(batch: Batch, outside: Outside) -> Any:
    found = OutsideAnswer.objects.filter(batch=batch)
    if isinstance(outside, tuple):
        found = found.filter(source=outside[0], annotator=outside[1])
    return found


def worked_items(batch: Batch, *, outside: Outside = True) -> Iterator[
        tuple[int | None, str | Annotator, Any, Record, bool, dict[str, Any]]]:
    """(assignment, worker's pseudonym, submitted, record, known-answer check or not, answer) of every item a counted
    assignment answered, in the order the work came in; items are looked up a chunk at a time. Then, unless
    `outside` is False, the answers given in another tool: (None, Annotator, when given, record, gold, answer)."""
    assignments = (Assignment.objects.answered(batch)
                   .order_by("submitted", "pk").values_list("pk", "worker_id", "submitted", "answers"))
    pseudonyms: dict[int, str] = {}  # as pseudonyms() names them
    # A chunk of assignments names a few thousand items (their HITs'), looked up at once.
    for chunk in _chunks(assignments.iterator(chunk_size=CHUNK // 10), CHUNK // 10):
        wanted = {int(key) for *_, answers in chunk for key in answers or {}}
        items = _records(batch, wanted)
        for pk, worker_id, submitted, answers in chunk:
            worker = pseudonyms.setdefault(worker_id, f"W{len(pseudonyms) + 1}")
            for item_id, answer in (answers or {}).items():
                found = items.get(int(item_id))
                if found is not None and isinstance(answer, dict):
                    yield pk, worker, submitted, found[0], found[1], answer
    if not outside:
        return
    given = _outside(batch, outside).order_by("item_id", "pk").values_list(
        "item_id", "source", "annotator", "given", "answers")
    for chunk in _chunks(given.iterator(chunk_size=CHUNK), CHUNK):
        items = _records(batch, {row[0] for row in chunk})
        for item_id, source, annotator, when, answer in chunk:
            if item_id in items:
                yield None, Annotator(source, annotator), when, items[item_id][0], items[item_id][1], answer


def pseudonyms(batch: Batch) -> dict[int, str]:
    """Each worker of a counted assignment of the batch (by id) as the export names them: W1, W2, ... in the order
    they first answered."""
    named: dict[int, str] = {}
    for worker_id in (Assignment.objects.answered(batch).order_by("submitted", "pk")
                      .values_list("worker_id", flat=True).iterator(chunk_size=CHUNK)):
        named.setdefault(worker_id, f"W{len(named) + 1}")
    return named


def conditions_summary(batch: Batch, design: Any) -> dict[str, Any]:
    """The people of each cell of the design's conditions (given one, and with counted answers), and the estimate of
    each scheme read by comparing them (a list experiment's: the treatment condition's mean count less the
    others', designs.conditions.difference_in_means); {} for a design without conditions."""
    if design.conditions is None:
        return {}
    cells = design.conditions.all_cells()
    named = pseudonyms(batch)
    given = dict(ConditionCell.objects.filter(batch=batch).values_list("worker_id", "cell"))
    of_worker = {name: cells[given[worker]].levels for worker, name in named.items() if worker in given}
    compared = {scheme.name: treatment for scheme in design.annotation_schemes
                if (treatment := SCHEME_TYPES.of(scheme).treatment(scheme)) is not None}
    counts: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in compared}
    if compared:
        for _, worker, _, _, gold, answer in worked_items(batch, outside=False):
            levels = of_worker.get(str(worker))
            for name, (factor, level) in compared.items():
                if levels is not None and not gold and answer.get(name) is not None:
                    counts[name][0 if levels.get(factor) == level else 1].append(float(answer[name]))
    return {"cells": [{"levels": cell.levels, "weight": cell.weight,
                       "given": sum(1 for place in given.values() if place == number),
                       "answered": sum(1 for levels in of_worker.values() if levels == cell.levels)}
                      for number, cell in enumerate(cells)],
            "estimates": {name: difference_in_means(*groups) for name, groups in counts.items()}}


def _records(batch: Batch, wanted: set[int]) -> dict[int, tuple[Record, bool]]:
    return {pk: (record_of(payload_from_json(payload)), gold) for pk, payload, gold in
            Item.objects.filter(batch=batch, pk__in=wanted).values_list("pk", "payload", "is_gold")}


def record_id(payload: str = "payload") -> Coalesce:
    """The id of the record an item's payload (at the lookup `payload`) holds, read by the database: a later stage's
    item's own, a design record's, or a SemEval sentence's, as `record_of` reads them (the item's key is not the id:
    designs.items)."""
    own = NullIf(KeyTextTransform("own_id", payload), Value("", output_field=TextField()))
    return Coalesce(own, KeyTextTransform("record_id", payload), KeyTextTransform("sentence_id", payload))


def item_answers(batch: Batch, *, outside: Outside = True) -> Iterator[tuple[int, bool, Record, list[Answer]]]:
    """(item id, known-answer check or not, record, counted answers) of each item of the batch in id order, each
    worker's answers in the order the work came in, then (unless `outside` is False) those given in another tool
    (their worker an Annotator): the database unnests and sorts the answers (json_each, jsonb_each), and items come a
    chunk at a time."""
    stream = answers_by_item(batch)
    waiting = next(stream, None)
    others = _outside_by_item(batch, outside) if outside else iter(())
    other = next(others, None)
    last = 0
    while True:
        items = list(Item.objects.filter(batch=batch, pk__gt=last).order_by("pk")
                     .values_list("pk", "payload", "is_gold")[:CHUNK])
        if not items:
            return
        for pk, payload, gold in items:
            found = record_of(payload_from_json(payload))
            answers = []
            while waiting is not None and waiting[0] < pk:
                waiting = next(stream, None)  # not an item of the batch (an answer kept after its item went)
            while waiting is not None and waiting[0] == pk:
                _, worker, answer, _ = waiting
                answers += [Answer(found.id, worker, scheme, value) for scheme, value in answer.items()]
                waiting = next(stream, None)
            while other is not None and other[0] <= pk:
                if other[0] == pk:
                    answers += [Answer(found.id, other[1], scheme, value) for scheme, value in other[2].items()]
                other = next(others, None)
            yield pk, gold, found, answers
        last = items[-1][0]


def _outside_by_item(batch: Batch, outside: Outside) -> Iterator[tuple[int, Annotator, dict[str, Any]]]:
    """(item id, annotator, answers) of the batch's outside answers in item order, a chunk at a time (read by
    keyset, not a cursor held open beside the crowd's answers')."""
    last = (0, 0)
    while True:
        rows = list(_outside(batch, outside).filter(
            Q(item_id__gt=last[0]) | Q(item_id=last[0], pk__gt=last[1])).order_by("item_id", "pk").values_list(
            "item_id", "pk", "source", "annotator", "answers")[:CHUNK])
        if not rows:
            return
        for item_id, _, source, annotator, answers in rows:
            if isinstance(answers, dict):
                yield item_id, Annotator(source, annotator), answers
        last = rows[-1][:2]


@dataclass
class Report:
    """A batch's agreement and aggregation, and what it read."""

    results: dict[str, SchemeResult]
    figures: dict[str, Any]
    answers: int  # answer rows (one per item, worker and scheme), known-answer items' included
    items: int


def batch_report(batch: Batch, *, each: Callable[[int, Record, dict[str, Any]], None] | None = None,
                 every: Callable[[Record, list[Answer]], None] | None = None, keep_items: bool = False,
                 progress: Callable[[int], None] | None = None, outside: Outside = True) -> Report:
    """The batch's agreement and aggregation per scheme and its components' figures (with the answers given in
    another tool, unless `outside` is False), reading one item's answers
    at a time (a scheme aggregated by Dawid-Skene or MACE keeps its votes until every item is read, then the items
    are read again). `each(item, record, {scheme: value})` is called for every item that is not a known-answer
    check, in id order, with the item's id; `every(record, answers)` for every item, checks included, with its
    answers as read; `progress(items read)` every chunk."""
    design, _ = batch_design(batch.pk)
    keys = {scheme.name: getattr(scheme, "items_key", None) for scheme in design.annotation_schemes}
    first = [found for found in scheme_accumulators(design) if found.method in GLOBAL_METHODS]
    labels: dict[str, dict[str, Any]] = {}
    if first:
        for _, gold, found, answers in item_answers(batch, outside=outside):
            if not gold:
                for accumulator in first:
                    accumulator.add(found.id, answers, found.text, _compared(found, keys[accumulator.scheme.name]))
        for accumulator in first:
            accumulator.finish()
            labels[accumulator.scheme.name] = accumulator.labels or {}
    accumulators = scheme_accumulators(design, keep_items=keep_items)
    for accumulator in accumulators:
        accumulator.labels = labels.get(accumulator.scheme.name)
    reporters = component_reporters(design)
    rows = items = 0
    for pk, gold, found, answers in item_answers(batch, outside=outside):
        rows += len(answers)
        items += 1
        if progress is not None and items % CHUNK == 0:
            progress(items)
        if every is not None:
            every(found, answers)
        if gold:
            continue
        values = {accumulator.scheme.name: accumulator.add(found.id, answers, found.text,
                                                           _compared(found, keys[accumulator.scheme.name]))
                  for accumulator in accumulators}
        for reporter in reporters:
            reporter.add(answers)
        if each is not None:
            each(pk, found, values)
    results = {accumulator.scheme.name: accumulator.result() for accumulator in accumulators}
    figures: dict[str, Any] = {}
    for reporter in reporters:
        figures.update(reporter.figures())
    return Report(results, figures, rows, items)


def _compared(found: Record, key: str | None) -> list[str]:
    value = found.fields.get(key) if key else None
    return [str(entry) for entry in value] if isinstance(value, list) else []


def batch_aggregate(batch: Batch, *, outside: Outside = True) -> tuple[dict[str, SchemeResult], list[dict[str, Any]]]:
    """Every scheme's result with each item's value, and every answer row, in memory: for small batches and tests
    (batch_report reads a batch of any size)."""
    return (batch_report(batch, keep_items=True, outside=outside).results,
            list(answer_rows(batch, outside=outside)))


def agreement_of(results: dict[str, SchemeResult]) -> dict[str, dict[str, Any]]:
    """What agreement.json and the stored report keep of each scheme's result: all but the items' values."""
    return {name: {key: value for key, value in result.as_json().items() if key != "items"}
            for name, result in results.items()}


def export_batch(*, batch: Batch, out: Path, formats: tuple[str, ...] = FORMATS,
                 progress: Callable[[int], None] | None = None) -> list[Path]:
    """Write the batch's export into `out` (made whole in a temporary folder first, so a failure leaves no half
    export). Returns the files written. Rows are written as they are read, so memory stays flat in the batch's
    size: the labels item by item (batch_report), then the answers as the work came in."""
    unknown = [name for name in formats if name not in FORMATS]
    if unknown:
        raise ValueError(f"unknown export format {unknown[0]!r}; use {', '.join(FORMATS)}")
    design, stage = batch_design(batch.pk)
    out = Path(out)
    temporary = Path(tempfile.mkdtemp(prefix=".export-", dir=out.parent if out.parent.exists() else None))
    try:
        names = [scheme.name for scheme in design.annotation_schemes if SCHEME_TYPES.of(scheme).answers]
        asked = design.stage_schemes(stage)
        labels = _Writers(temporary, "labels", formats, ["id", "text", *names], _label_types(design), _label_cell)
        # The answers are read once item by item (the labels, Label Studio's tasks) and once in the order the work
        # came in (the answers, Potato's records): each reading feeds every writer that wants that order.
        tasks = _LabelStudioFiles(batch, design, temporary / "labelstudio", stage) if "labelstudio" in formats \
            else None
        # A scheme a stage does not ask is the answer its items carry from an earlier stage (the counterfactual a
        # check stage judged), as given; otherwise its column would be empty in every stage but one.
        report = batch_report(batch, progress=progress, every=tasks.add if tasks else None,
                              each=lambda _, found, values: labels.write(
                                  {"id": found.id, "text": found.text,
                                   **{name: values.get(name) if asked is None or name in asked
                                      else found.fields.get(name) for name in names}}))
        answers = _Writers(temporary, "answers", formats, list(ANSWER_TYPES), ANSWER_TYPES, _answer_cell)
        potato = _PotatoFiles(design, temporary / "potato") if "potato" in formats else None
        for pk, worker, submitted, found, gold, answer in worked_items(batch):
            for row in _rows_of(pk, worker, submitted, found, gold, answer):
                answers.write(row)
            if potato is not None:
                potato.add(worker, found, answer)
        written = labels.close() + answers.close()
        if potato is not None:
            written += potato.close(batch)
        if tasks is not None:
            written += tasks.close()
        agreement = agreement_of(report.results)
        if "hf" in formats:
            written += _hf_folder(temporary / "hf", design, temporary, labels.count, answers.count, agreement)
            if "jsonl" not in formats:  # written for the folder only
                for name in ("labels", "answers"):
                    (temporary / f"{name}.jsonl").unlink()
        if design.conditions is not None:
            written += conditions_output(batch, design, temporary)
        if _shared(design):
            written.append(shared_output(batch, design, temporary / "shared_events.json", by_scheme=True))
        (temporary / "agreement.json").write_text(json.dumps(agreement, indent=2, sort_keys=True) + "\n")
        written.append(temporary / "agreement.json")
        if out.exists():
            shutil.rmtree(out)
        temporary.rename(out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return [out / path.relative_to(temporary) for path in written]


def _cells_given(batch: Batch, design: Any) -> list[tuple[str, dict[str, str], int, int]]:
    """(pseudonym, levels, arrival in the batch, arrival in the cell) of each worker with counted answers who was
    given a cell, in the order they arrived."""
    named = pseudonyms(batch)
    return [(named[worker], levels, ordinal, cell_ordinal) for worker, levels, ordinal, cell_ordinal in
            ConditionCell.objects.filter(batch=batch, worker__in=list(named)).order_by("ordinal").values_list(
                "worker_id", "levels", "ordinal", "cell_ordinal")]


def conditions_output(batch: Batch, design: Any, folder: Path) -> list[Path]:
    """conditions.csv (each annotator's level of every factor, and when they arrived) and conditions.json (the
    people of each cell, each list experiment's estimate)."""
    factors = list(design.conditions.factors)
    with (folder / "conditions.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["annotator", *factors, "ordinal", "cell_ordinal"])
        for name, levels, ordinal, cell_ordinal in _cells_given(batch, design):
            writer.writerow([name, *(levels.get(factor, "") for factor in factors), ordinal, cell_ordinal])
    (folder / "conditions.json").write_text(json.dumps(conditions_summary(batch, design), indent=2) + "\n")
    return [folder / "conditions.csv", folder / "conditions.json"]


# The columns of Potato's participants.csv (potato.export) after its condition_<factor> ones: what its phases,
# screening and page orders kept, of which a batch here has none.
POTATO_PARTICIPANT_COLUMNS = ("latin_ordinal", "final_phase", "screened_out", "screened_out_page", "skipped_pages",
                              "page_orders", "question_orders", "runtime_runs", "runtime_answers")


def potato_participants(batch: Batch, design: Any, folder: Path) -> Path:
    """participants.csv as Potato's export writes it for a study with conditions: a row per annotator, their level
    of each factor, their arrival in the study and in their cell."""
    factors = list(design.conditions.factors)
    with (folder / "participants.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["user_id", *(f"condition_{factor}" for factor in factors), "condition_ordinal",
                         "cell_ordinal", *POTATO_PARTICIPANT_COLUMNS])
        for name, levels, ordinal, cell_ordinal in _cells_given(batch, design):
            writer.writerow([name, *(levels.get(factor, "") for factor in factors), ordinal, cell_ordinal,
                             "", "done", 0, "", "", "{}", "{}", "{}", "{}"])
    return folder / "participants.csv"


def _shared(design: Any) -> list[str]:
    return [scheme.name for scheme in design.annotation_schemes if SCHEME_TYPES.of(scheme).keeps_shared]


def shared_output(batch: Batch, design: Any, path: Path, by_scheme: bool = False) -> Path:
    """The events the batch's workers kept above its documents (designs.models.SharedEvent) as Potato's registry
    writes them ({"version": 1, "events": {id: event}}), workers as the export names them: one registry for all of
    the design's such schemes (Potato's), or one per scheme (`by_scheme`, ours: {scheme: registry})."""
    names = pseudonyms(batch)
    registries: dict[str, dict[str, Any]] = {name: {"version": 1, "events": {}} for name in _shared(design)}
    for event in SharedEvent.objects.filter(batch=batch).order_by("pk"):
        if event.scheme in registries:
            registries[event.scheme]["events"][event.key] = event.as_potato(names)
    merged = {"version": 1, "events": {key: found for registry in registries.values()
                                       for key, found in registry["events"].items()}}
    path.write_text(json.dumps(registries if by_scheme else merged, indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return path


class _LabelStudioFiles:
    """The answers as a Label Studio project: config.xml (the design as a labeling config; a stage's batch, what the
    stage asks) and tasks.json (each item a task with one annotation per annotator, in Label Studio's result shapes),
    which Label Studio imports with that config; left-out.txt names the schemes Label Studio has no control for.
    Written item by item as the items are read (`add`)."""

    def __init__(self, batch: Batch, design: Any, folder: Path, stage: str = ""):
        from designs.labelstudio import config_of, tasks_of

        folder.mkdir()
        self.design, self.folder, self.stage = design, folder, stage
        config, to_name, self.left_out, self.always = config_of(design, stage)
        (folder / "config.xml").write_text(config, encoding="utf-8")
        # A Label Studio prediction's score, kept with its model's answers, goes back with it (a model asked here has
        # none).
        scores = {(record, annotator): meta["score"] for record, annotator, meta in OutsideAnswer.objects
                  .filter(batch=batch, source=OutsideAnswer.MODEL, meta__has_key="score")
                  .values_list(record_id("item__payload"), "annotator", "meta")}
        # tasks_of makes one task of each item it reads: each item added is read from here as it is added.
        self.waiting: deque[tuple[Record, list[Answer]]] = deque()
        self.tasks = tasks_of(design, iter(self.waiting.popleft, None), to_name, scores, stage)
        self.out = (folder / "tasks.json").open("w", encoding="utf-8")
        self.out.write("[")
        self.count = 0

    def add(self, record: Record, answers: list[Answer]) -> None:
        self.waiting.append((record, answers))
        self.out.write(("," if self.count else "") + "\n" + json.dumps(next(self.tasks), ensure_ascii=False))
        self.count += 1

    def close(self) -> list[Path]:
        from designs.labelstudio import asked_schemes

        self.out.write("\n]\n")
        self.out.close()
        written = [self.folder / "config.xml", self.folder / "tasks.json"]
        left_out, always = self.left_out, self.always
        # Every question left out is a config Label Studio takes as a view-only project; said first, as it is the
        # news.
        nothing = left_out and not [scheme for scheme in asked_schemes(self.design, self.stage)
                                    if SCHEME_TYPES.of(scheme).answers and scheme.name not in left_out]
        if left_out or always:
            (self.folder / "left-out.txt").write_text(
                ("The config asks nothing: Label Studio has no control for any scheme asked here, and shows the "
                 "items only (a view-only project).\n" if nothing else "")
                + (f"Label Studio has no control for these schemes; their answers go out in the csv and jsonl "
                   f"formats (answers.csv, answers.jsonl): {', '.join(left_out)}\n" if left_out else "")
                + (f"Label Studio shows these always, and does not require them: their display logic has no Label "
                   f"Studio form: {', '.join(always)}\n" if always else ""))
            written.append(self.folder / "left-out.txt")
        return written


class _PotatoFiles:
    """The answers as Potato 2's jsonl and csv exporters write them (annotations.jsonl, annotations.csv): a record
    per annotator and item, {instance_id, user_id, labels: {scheme: {input: value}}, spans: {scheme: [...]}, links:
    {scheme: [...]}}, each scheme's answer in Potato's own form (designs.schemes' potato_answer; Potato's own
    exporter leaves links empty, ours writes them as Potato stores them, and an event scheme's events under events as
    Potato's page stores them); the csv has a column per scheme and input (scheme.input), per span, link or event
    scheme (scheme._spans, scheme._links, scheme._events) and per score Potato adds (a cloze's), in
    the order they first appear; an item left unanswered is not written, as Potato keeps nothing of it. Written as
    the work is read (`add`): the csv's rows wait in a file of their own until its columns are known, so memory
    stays flat."""

    def __init__(self, design: Any, folder: Path):
        folder.mkdir()
        self.design, self.folder = design, folder
        self.schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
        self.lines, self.table, self.waiting = folder / "annotations.jsonl", folder / "annotations.csv", \
            folder / "rows.jsonl"
        self.columns: dict[str, None] = dict.fromkeys(["instance_id", "user_id"])
        self.out = self.lines.open("w", encoding="utf-8")
        self.rows = self.waiting.open("w", encoding="utf-8")

    def add(self, worker: str | Annotator, found: Record, answer: dict[str, Any]) -> None:
        design = self.design
        record: dict[str, Any] = {"instance_id": found.id, "user_id": str(worker), "labels": {}, "spans": {},
                                  "links": {}}
        row: dict[str, Any] = {"instance_id": found.id, "user_id": str(worker)}
        for name, scheme in self.schemes.items():
            kind, value = SCHEME_TYPES.of(scheme), answer.get(name)
            alias = design.export.potato_types.get(name)
            written = {} if value is None else kind.potato_alias_answer(
                alias, scheme, value, found, design.export.potato_settings.get(name)) if alias \
                else kind.potato_answer(scheme, value, found)
            if written.get("labels"):
                record["labels"][name] = written["labels"]
                row.update((f"{name}.{key}", text) for key, text in written["labels"].items())
            for part in ("spans", "links", "events"):
                if written.get(part):  # events only where a design has them: Potato's export has no such key
                    record.setdefault(part, {})[name] = written[part]
                    row[f"{name}._{part}"] = json.dumps(written[part])
            row.update((f"{name}.{key}", score) for key, score in kind.potato_scores(scheme, value, found).items())
        if not (record["labels"] or record["spans"] or record["links"] or record.get("events")):
            return  # an item seen and left unanswered: Potato keeps nothing of it
        self.columns.update(dict.fromkeys(row))
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.rows.write(json.dumps(row, ensure_ascii=False) + "\n")

    def close(self, batch: Batch) -> list[Path]:
        self.out.close()
        self.rows.close()
        with self.waiting.open(encoding="utf-8") as rows, self.table.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(self.columns), lineterminator="\n")
            writer.writeheader()
            writer.writerows(map(json.loads, rows))
        self.waiting.unlink()
        design, folder = self.design, self.folder
        return [self.lines, self.table] \
            + ([potato_participants(batch, design, folder)] if design.conditions is not None else []) \
            + ([shared_output(batch, design, folder / "event_registry.json")] if _shared(design) else [])


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# The answers' columns and their Parquet types: a value is its text, or its JSON when it is not a string.
ANSWER_TYPES = {"item": "string", "annotator": "string", "scheme": "string", "value": "string", "time": "string",
                "assignment": "int64", "gold": "bool"}


def _label_types(design: Any) -> dict[str, str]:
    """The labels' Parquet columns: each scheme's by what its aggregation gives (a number for mean and median, the
    answer's own type for a majority of numbers or integers, else text; lists and objects as JSON text)."""
    found = {"id": "string", "text": "string"}
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.answers:
            continue
        method = (design.aggregation.get(scheme.name).method if scheme.name in design.aggregation
                  else kind.aggregators[0])
        answer = kind.answer_schema(scheme).get("type")
        numeric = method in ("mean", "median") or (method in ("majority", "dawid-skene", "mace") and answer in (
            "number", "integer"))
        found[scheme.name] = "double" if numeric else "string"
    return found


class _Writers:
    """One table's rows to every format asked for, a row at a time: CSV (spreadsheet-safe), JSON Lines, Parquet
    (in row groups) and the Hugging Face folder's JSON Lines (a copy of the JSON Lines when they are written)."""

    def __init__(self, folder: Path, name: str, formats: tuple[str, ...], columns: list[str], types: dict[str, str],
                 flat: Callable[[str, Any], Any]):
        self.folder, self.name, self.formats, self.columns, self.types = folder, name, formats, columns, types
        self.flat = flat  # (column, value) -> the cell of a flat table (CSV, Parquet)
        self.count = 0
        self.files: dict[str, Any] = {}
        self.csv: Any = None
        self.batch: list[dict[str, Any]] = []
        self.parquet: Any = None
        if "csv" in formats:
            self.files["csv"] = open(folder / f"{name}.csv", "w", encoding="utf-8", newline="")  # noqa: SIM115
            self.csv = csv.writer(self.files["csv"])
        if "jsonl" in formats or "hf" in formats:
            self.files["jsonl"] = open(folder / f"{name}.jsonl", "w", encoding="utf-8")  # noqa: SIM115

    def write(self, row: dict[str, Any]) -> None:
        if self.csv is not None:
            if not self.count:
                self.csv.writerow(list(row))
            # Opened in a spreadsheet, a cell starting with = + - @ would run as a formula: neutralized.
            self.csv.writerow([spreadsheet_cell(cell) if isinstance(cell, str) else cell
                               for cell in (self.flat(column, value) for column, value in row.items())])
        if "jsonl" in self.files:
            self.files["jsonl"].write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        if "parquet" in self.formats:
            self.batch.append(row)
            if len(self.batch) >= CHUNK:
                self._flush()
        self.count += 1

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        kinds = {"string": pa.string(), "double": pa.float64(), "int64": pa.int64(), "bool": pa.bool_()}
        schema = pa.schema([(column, kinds[self.types.get(column, "string")]) for column in self.columns])
        columns: dict[str, list[Any]] = {column: [] for column in self.columns}
        for row in self.batch:
            for column in self.columns:
                columns[column].append(_typed(self.flat(column, row.get(column)), self.types.get(column, "string")))
        table = pa.table(columns, schema=schema)
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.folder / f"{self.name}.parquet", schema)
        self.parquet.write_table(table)
        self.batch = []

    def close(self) -> list[Path]:
        written = []
        for kind, handle in self.files.items():
            handle.close()
            if kind == "csv" or "jsonl" in self.formats:
                written.append(self.folder / f"{self.name}.{kind}")
        if "parquet" in self.formats:
            if self.batch or self.parquet is None:
                self._flush()
            self.parquet.close()
            written.append(self.folder / f"{self.name}.parquet")
        return written


def _label_cell(column: str, value: Any) -> Any:
    """A label in a flat table: lists and mappings as JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, list | dict) else value


def _answer_cell(column: str, value: Any) -> Any:
    """An answer row's cell in a flat table: the value is its text, or its JSON when it is not a string."""
    return json.dumps(value) if column == "value" and not isinstance(value, str) else value


def _typed(value: Any, kind: str) -> Any:
    """A cell as its Parquet column holds it: text (JSON for what is not a string), a number, or nothing."""
    if value is None:
        return None
    if kind == "double":
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    if kind in ("int64", "bool"):
        return value
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _hf_folder(folder: Path, design: Any, written: Path, labels: int, answers: int,
               agreement: dict[str, Any]) -> list[Path]:
    """The Hugging Face dataset folder: the JSON Lines files as they were written, and the card."""
    (folder / "data").mkdir(parents=True)
    copied = []
    for name in ("labels", "answers"):
        shutil.copyfile(written / f"{name}.jsonl", folder / "data" / f"{name}.jsonl")
        copied.append(folder / "data" / f"{name}.jsonl")
    card = folder / "README.md"
    card.write_text(dataset_card(design, labels, answers, agreement), encoding="utf-8")
    return [*copied, card]


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
