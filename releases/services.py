"""Dataset workflows: freeze labeled sentences into a version with a split,
import the released files, export every format with statistics and a card."""

from __future__ import annotations

import json
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from aggregation import maths
from aggregation.models import AggregationRun
from annotation.models import SpanAnnotation
from core import semeval as formats
from core.errors import InputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure
from core.items import SentenceItem
from core.spans import Spans
from releases import baselines, selectors, splits
from releases.models import DatasetSentence, DatasetSpan, DatasetVersion, Split

LABELS = {maths.POSITIVE: 1, maths.NEGATIVE_100: 0, maths.NEGATIVE_80: 0}


class DatasetError(InputError):
    """A dataset version that cannot be made or read as asked; the message says why."""


def _split_options(test_share: float, seed: int, stratify: Sequence[str], group: str | None) -> dict[str, Any]:
    return {"test_share": test_share, "seed": seed, "stratify": list(stratify), "group": group}


@transaction.atomic
def dataset_from_aggregation(*, run: AggregationRun, name: str, test_share: float = 0.35, seed: int = 0,
                             stratify: Sequence[str] = ("label",), group: str | None = None) -> DatasetVersion:
    """Sentences the aggregation labeled (positives, and negatives kept by the rules), split,
    with the Subtask-2 spans organizers accepted for its positives.

    Known-answer check items are left out: they measured the workers, they are
    not part of the collected data. A positive the span review removed as not
    counterfactual is left out too: five votes said yes, the review said no,
    so it is neither a sure positive nor a sure negative.
    """
    if DatasetVersion.objects.filter(name=name).exists():
        raise DatasetError(f"a dataset version named {name!r} exists; versions are frozen, pick a new name")
    outcomes = run.outcomes.select_related("item").filter(outcome__in=LABELS, item__is_gold=False)
    reviewed = {a.source_item_id: a for a in SpanAnnotation.objects.filter(
        source_item__in=outcomes.values("item"), state__in=[SpanAnnotation.State.ACCEPTED,
                                                            SpanAnnotation.State.REMOVED])}
    records: list[dict[str, Any]] = []
    spans: dict[str, SpanAnnotation] = {}
    removed = 0
    for outcome in outcomes:
        annotation = reviewed.get(outcome.item_id)
        if annotation and annotation.state == SpanAnnotation.State.REMOVED:
            removed += 1
            continue
        payload = outcome.item.content
        if not isinstance(payload, SentenceItem):
            raise DatasetError(f"aggregation {run.pk} is of {payload.kind} items; a SemEval dataset needs sentences")
        key = payload.sentence_id
        if annotation and LABELS[outcome.outcome] == 1:
            spans[key] = annotation
        records.append({"key": key, "label": LABELS[outcome.outcome], "text": payload.text,
                        "domain": payload.domain or outcome.item.group, "document": payload.document,
                        "yes": outcome.yes, "no": outcome.no, "outcome": outcome.outcome})
    if not records:
        raise DatasetError(f"aggregation {run.pk} labeled no sentence; nothing to freeze")
    assignment, report = splits.split(records, test_share=test_share, seed=seed, stratify=stratify, group=group)
    version = DatasetVersion.objects.create(
        name=name, split_report=report,
        config={"source": "aggregation", "aggregation_run": run.pk, "batch": run.batch_id, "rules": run.rules_text,
                "spans": "accepted span reviews", "removed_by_review": removed,
                **_split_options(test_share, seed, stratify, group)})
    DatasetSentence.objects.bulk_create(
        DatasetSentence(version=version, sentence_id=r["key"], text=r["text"], label=r["label"],
                        split=assignment[r["key"]], domain=r["domain"] or "", document=r["document"] or "",
                        votes_yes=r["yes"], votes_no=r["no"], outcome=r["outcome"]) for r in records)
    DatasetSpan.objects.bulk_create(
        DatasetSpan(version=version, sentence_id=key, text=a.text, split=assignment[key],
                    antecedent_start=a.antecedent_start, antecedent_end=a.antecedent_end,
                    consequent_start=a.consequent_start, consequent_end=a.consequent_end)
        for key, a in spans.items())
    return version


@transaction.atomic
def dataset_import_released(*, name: str, subtask1_path: str | PathLike[str],
                            subtask2_path: str | PathLike[str] | None = None, test_share: float = 0.35,
                            seed: int = 0) -> DatasetVersion:
    """The released files as a version, split again (stratified by label); a Subtask-2
    sentence that is also in Subtask 1 (same text) goes to the same side."""
    if DatasetVersion.objects.filter(name=name).exists():
        raise DatasetError(f"a dataset version named {name!r} exists; versions are frozen, pick a new name")
    try:
        rows = formats.read_subtask1_rows(subtask1_path)
        spans = formats.read_subtask2_gold(subtask2_path) if subtask2_path else {}
    except InputError as error:
        raise DatasetError(str(error)) from None
    records: list[dict[str, Any]] = [{"key": key, "label": label, "text": text} for key, label, text in rows]
    assignment, report = splits.split(records, test_share=test_share, seed=seed, stratify=("label",))
    side_of_text = {r["text"]: assignment[r["key"]] for r in records}
    span_records = [{"key": key, "label": int(s.consequent_start != -1), "text": text}
                    for key, (text, s) in spans.items() if text not in side_of_text]
    span_assignment, _ = splits.split(span_records, test_share=test_share, seed=seed, stratify=("label",)) \
        if span_records else ({}, {})
    version = DatasetVersion.objects.create(
        name=name, split_report=report,
        config={"source": "released", "subtask1": str(Path(subtask1_path).name),
                "subtask2": Path(subtask2_path).name if subtask2_path else None,
                **_split_options(test_share, seed, ("label",), None)})
    DatasetSentence.objects.bulk_create(
        DatasetSentence(version=version, sentence_id=r["key"], text=r["text"], label=r["label"],
                        split=assignment[r["key"]]) for r in records)
    DatasetSpan.objects.bulk_create(
        DatasetSpan(version=version, sentence_id=key, text=text,
                    split=side_of_text.get(text) or span_assignment[key],
                    antecedent_start=s.antecedent_start, antecedent_end=s.antecedent_end,
                    consequent_start=s.consequent_start, consequent_end=s.consequent_end)
        for key, (text, s) in spans.items())
    return version


# --- statistics --------------------------------------------------------------------

def table1(version: DatasetVersion) -> dict[str, dict[str, int]]:
    """The paper's Table 1: counterfactual / non-counterfactual per split."""
    return selectors.version_tables([version.pk])[version.pk]["table1"]


def table2(version: DatasetVersion) -> dict[str, dict[str, int]]:
    """The paper's Table 2: antecedent only / antecedent and consequent per split."""
    return selectors.version_tables([version.pk])[version.pk]["table2"]


def format_table(title: str, table: dict[str, dict[str, int]]) -> str:
    columns = list(table["train"])
    lines = [title, "  " + f"{'':<8}" + "".join(f"{c.replace('_', ' '):>28}" for c in columns)]
    for side, row in table.items():
        lines.append("  " + f"{side:<8}" + "".join(f"{row[c]:>28,}" for c in columns))
    return "\n".join(lines)


def word_count_figure(version: DatasetVersion, figure: Figure) -> Figure:
    """Histograms of words per sentence, per subtask and split, as the paper's Appendix C figure."""
    axes = figure.subplots(1, 2)
    panels: list[tuple[str, Any]] = [("Subtask 1", version.sentences), ("Subtask 2", version.spans)]
    for axis, (title, queryset) in zip(axes, panels, strict=True):
        for side in Split.values:
            counts = [len(text.split()) for text in queryset.filter(split=side).values_list("text", flat=True)]
            if counts:
                axis.hist(counts, bins=range(0, max(counts) + 5, 5), alpha=0.6, label=f"{side} ({len(counts)})")
        axis.set_title(title)
        axis.set_xlabel("words per sentence")
        axis.set_ylabel("sentences")
        if axis.has_data():
            axis.legend()
        else:
            axis.text(0.5, 0.5, "no sentences in this version", ha="center", va="center", transform=axis.transAxes)
    figure.tight_layout()
    return figure


def word_count_plot(version: DatasetVersion, path: str | PathLike[str]) -> None:
    # Imported here: matplotlib costs every process that loads the apps 60 MiB, and only exports draw.
    from matplotlib.figure import Figure

    # A Figure of its own, not pyplot: no global state, safe in a web process's threads.
    word_count_figure(version, Figure(figsize=(11, 4))).savefig(path, dpi=100)


# --- baselines -----------------------------------------------------------------------

def dataset_baselines(*, version: DatasetVersion) -> dict[str, Any]:
    """The paper's baselines trained on the version's train side and scored on its test side with our
    scorer: tf-idf + linear SVM (Subtask 1) and, when both sides have spans, a CRF (Subtask 2).
    Stored in `version.results["baselines"]`."""
    rows = {side: [(s.sentence_id, s.label, s.text) for s in version.sentences.filter(split=side)]
            for side in Split.values}
    if not rows["train"] or not rows["test"]:
        raise DatasetError(f"dataset {version.name} needs sentences on both sides to train and score a baseline")
    results: dict[str, Any] = {"subtask1_svm": baselines.subtask1_svm(rows["train"], rows["test"])}
    spans = {side: [(s.sentence_id, s.text, _spans(s)) for s in version.spans.filter(split=side)]
             for side in Split.values}
    if spans["train"] and spans["test"]:
        results["subtask2_crf"] = baselines.subtask2_crf(spans["train"], spans["test"])
    version.results = {**version.results, "baselines": results}
    version.save(update_fields=["results"])
    return results


# --- export --------------------------------------------------------------------------

def dataset_export(*, version: DatasetVersion, folder: str | PathLike[str]) -> list[str]:
    """Write every format of `version` into `folder`; returns the list of files written.

    Each version has a folder of its own: a folder that holds another version's export, or anything else,
    is refused (a mark file says whose export a folder holds), so one export never overwrites another's
    files, and a download of version A never serves B.
    """
    folder = Path(folder)
    _claim_folder(version, folder)
    written: list[str] = []

    def write(name: str, text: str) -> None:
        (folder / name).write_bytes(text.encode("utf-8"))
        written.append(name)

    sentences = list(version.sentences.order_by("sentence_id"))
    spans = list(version.spans.order_by("sentence_id"))
    for side in Split.values:
        write(f"subtask1_{side}.csv", formats.subtask1_csv(
            (s.sentence_id, s.label, s.text) for s in sentences if s.split == side))
        if spans:
            write(f"subtask2_{side}.csv", formats.subtask2_csv(
                (s.sentence_id, s.text, _spans(s)) for s in spans if s.split == side))
    records = [{"sentenceID": s.sentence_id, "gold_label": s.label, "sentence": s.text, "split": s.split,
                "domain": s.domain, "document": s.document, "votes_yes": s.votes_yes, "votes_no": s.votes_no,
                "agreement": _agreement(s), "outcome": s.outcome} for s in sentences]
    write("subtask1.jsonl", "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
    _parquet(records, folder / "subtask1.parquet")
    written.append("subtask1.parquet")
    header = list(records[0]) if records else list(formats.SUBTASK1)
    write("subtask1_spreadsheet.csv", formats.spreadsheet_csv(header, ([r[c] for c in header] for r in records)))
    if spans:
        span_records = [{"sentenceID": s.sentence_id, "sentence": s.text, "split": s.split,
                         **dict(zip(formats.SUBTASK2[2:], formats.subtask2_row(s.sentence_id, s.text, _spans(s))[2:],
                                    strict=True))} for s in spans]
        write("subtask2.jsonl", "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in span_records))
    statistics = {"table1": table1(version), "table2": table2(version), "split": version.split_report}
    write("statistics.json", json.dumps(statistics, indent=2))
    word_count_plot(version, folder / "word_counts.png")
    written.append("word_counts.png")
    write("README.md", dataset_card(version, statistics, bool(spans)))
    # Where the files are, for the download links of the pages.
    version.results = {**version.results, "export": {"folder": str(folder.resolve()), "files": written,
                                                     "at": timezone.now().isoformat()}}
    version.save(update_fields=["results"])
    return written


EXPORT_MARK = ".crowdset-version"


def _claim_folder(version: DatasetVersion, folder: Path) -> None:
    mark = folder / EXPORT_MARK
    if folder.exists() and not folder.is_dir():
        raise DatasetError(f"{folder} is a file; export into a folder")
    if mark.exists():
        owner = mark.read_text(encoding="utf-8").strip()
        if owner != version.name:
            raise DatasetError(f"{folder} holds the export of dataset version {owner!r}; export {version.name!r} "
                               f"into a folder of its own")
    elif folder.exists() and any(folder.iterdir()):
        raise DatasetError(f"{folder} is not empty and holds no export of {version.name!r}; export into an empty "
                           f"or new folder")
    folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(version.name + "\n", encoding="utf-8")


def _spans(row: DatasetSpan) -> Spans:
    return Spans(row.antecedent_start, row.antecedent_end, row.consequent_start, row.consequent_end)


def _agreement(sentence: DatasetSentence) -> float | None:
    if sentence.votes_yes is None or sentence.votes_no is None:
        return None
    total = sentence.votes_yes + sentence.votes_no
    return max(sentence.votes_yes, sentence.votes_no) / total if total else None


def _parquet(records: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(records), path)


def dataset_card(version: DatasetVersion, statistics: dict[str, Any], has_spans: bool) -> str:
    t1, t2 = statistics["table1"], statistics["table2"]
    configs = ["configs:", "- config_name: subtask1", "  data_files:",
               "  - split: train", "    path: subtask1_train.csv", "  - split: test", "    path: subtask1_test.csv"]
    if has_spans:
        configs += ["- config_name: subtask2", "  data_files:", "  - split: train", "    path: subtask2_train.csv",
                    "  - split: test", "    path: subtask2_test.csv"]
    config = version.config
    lines = [
        "---", "language:", "- en", "task_categories:", "- text-classification", "- token-classification",
        *configs, "---", "", f"# {version.name}", "",
        "Counterfactual statements in news text, in the file formats of SemEval-2020 Task 5 "
        "(subtask1_*.csv: sentenceID,gold_label,sentence; subtask2_*.csv: end-inclusive character offsets, "
        "`{}` and -1/-1 when there is no consequent).", "",
        "## Sizes", "",
        "| split | counterfactual | non-counterfactual | total |", "| --- | --- | --- | --- |",
        *[f"| {side} | {row['counterfactual']} | {row['non_counterfactual']} | {row['total']} |"
          for side, row in t1.items()], "",
    ]
    if has_spans:
        lines += ["| split | antecedent only | antecedent and consequent | total |", "| --- | --- | --- | --- |",
                  *[f"| {side} | {row['antecedent_only']} | {row['antecedent_and_consequent']} | {row['total']} |"
                    for side, row in t2.items()], ""]
    report = statistics["split"]
    lines += [
        "## How it was made", "",
        f"- source: {config.get('source')}" + (f", aggregation run {config['aggregation_run']} of batch "
                                               f"{config['batch']}" if config.get("aggregation_run") else ""),
        f"- labeling rules: {config.get('rules', 'as released')}",
        f"- split: {1 - config['test_share']:.0%} train / {config['test_share']:.0%} test, seed {config['seed']}, "
        f"stratified by {', '.join(config['stratify']) or 'nothing'}, "
        + (f"grouped by {config['group']}" if config.get("group") else
           f"not grouped ({report.get('documents_on_both_sides', 0)} source documents have sentences on both sides)"),
        "- agreement: `subtask1.jsonl` and `subtask1.parquet` carry per-sentence vote counts and agreement",
        "- `subtask1_spreadsheet.csv` is for spreadsheets: cells starting with = + - @ are prefixed with ' there; "
        "the SemEval CSVs keep every sentence exactly as written", "",
        "Load with `datasets.load_dataset(\"csv\", data_files={\"train\": \"subtask1_train.csv\", "
        "\"test\": \"subtask1_test.csv\"})`.", "",
    ]
    return "\n".join(lines)
