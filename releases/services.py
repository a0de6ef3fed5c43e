"""Dataset workflows: freeze labeled sentences into a version with a split,
import the released files, export every format with statistics and a card."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from aggregation import maths
from aggregation.models import AggregationRun
from aggregation.report import span_agreement_text
from aggregation.services import run_staleness, span_batch_agreement
from annotation.models import SpanAnnotation
from core import semeval as formats
from core.errors import InputError
from core.items import as_sentence
from core.words import counted

if TYPE_CHECKING:
    from matplotlib.figure import Figure
from core.spans import Spans
from hits.models import Batch
from releases import baselines, selectors, splits
from releases.models import DatasetSentence, DatasetSpan, DatasetVersion, Split

LABELS = {maths.POSITIVE: 1, maths.NEGATIVE_100: 0, maths.NEGATIVE_80: 0, maths.NEGATIVE: 0}


class DatasetError(InputError):
    """A dataset version that cannot be made or read as asked; the message says why."""


def _split_options(test_share: float, seed: int, stratify: Sequence[str], group: str | None) -> dict[str, Any]:
    return {"test_share": test_share, "seed": seed, "stratify": list(stratify), "group": group}


@transaction.atomic
def dataset_from_aggregation(*, run: AggregationRun, name: str, test_share: float = 0.35, seed: int = 0,
                             stratify: Sequence[str] = ("label",), group: str | None = None,
                             allow_stale: bool = False) -> DatasetVersion:
    """Sentences the aggregation labeled (positives, and negatives kept by the rules), split,
    with the Subtask-2 spans organizers accepted for its positives.

    Known-answer check items are left out: they measured the workers, they are
    not part of the collected data. A positive the span review removed as not
    counterfactual is left out too: five votes said yes, the review said no,
    so it is neither a sure positive nor a sure negative.
    """
    if DatasetVersion.objects.filter(name=name).exists():
        raise DatasetError(f"a dataset version named {name!r} exists; versions are frozen, pick a new name")
    stale = run_staleness(run)
    if stale and not allow_stale:
        raise DatasetError(f"{stale} before building a version from it (or build from this run anyway with "
                           f"--allow-stale)")
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
        payload = as_sentence(outcome.item.content)
        if payload is None:
            raise DatasetError(f"aggregation {run.pk} is of {outcome.item.content.kind} items; a SemEval dataset "
                               f"needs sentences")
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
                            subtask2_path: str | PathLike[str] | None = None,
                            subtask1_test_path: str | PathLike[str] | None = None,
                            subtask2_test_path: str | PathLike[str] | None = None,
                            test_share: float = 0.35, seed: int = 0) -> DatasetVersion:
    """The released files as a version.

    With a test file, the released sides are kept as they are: each file's sentences are that side, and
    Tables 1 and 2 come out as the paper prints them. Without one, the files are split again (stratified by
    label), and a Subtask-2 sentence that is also in Subtask 1 (same text) goes to the same side. Each file's
    last-line convention is kept, so exporting the version gives every file back byte for byte.
    """
    if DatasetVersion.objects.filter(name=name).exists():
        raise DatasetError(f"a dataset version named {name!r} exists; versions are frozen, pick a new name")
    if subtask2_test_path and not subtask1_test_path:
        raise DatasetError("a Subtask-2 test file needs the Subtask-1 test file too (--subtask1-test): the sides "
                           "are kept only when both tasks have them")
    given = {"subtask1_train": subtask1_path, "subtask1_test": subtask1_test_path,
             "subtask2_train": subtask2_path, "subtask2_test": subtask2_test_path}
    files: dict[str, str | PathLike[str]] = {key: path for key, path in given.items() if path is not None}
    try:
        rows = {side: formats.read_subtask1_rows(files[f"subtask1_{side}"]) for side in Split.values
                if f"subtask1_{side}" in files}
        spans = {side: formats.read_subtask2_gold(files[f"subtask2_{side}"]) for side in Split.values
                 if f"subtask2_{side}" in files}
        line_ends = {key: formats.ends_with_line_end(path) for key, path in files.items()}
    except (InputError, OSError) as error:
        raise DatasetError(str(error)) from None
    keep_sides = "test" in rows
    records: list[dict[str, Any]] = [{"key": key, "label": label, "text": text, "side": side}
                                     for side, found in rows.items() for key, label, text in found]
    _refuse_repeats([(r["key"], files[f"subtask1_{r['side']}"]) for r in records], "Subtask-1")
    all_spans = {key: (text, found, side) for side, by_key in spans.items() for key, (text, found) in by_key.items()}
    _refuse_repeats([(key, files[f"subtask2_{side}"]) for side, by_key in spans.items() for key in by_key],
                    "Subtask-2")
    if keep_sides:
        assignment = {r["key"]: r["side"] for r in records}
        report = splits.report(records, assignment)
        span_side = {key: side for key, (_, _, side) in all_spans.items()}
    else:
        assignment, report = splits.split(records, test_share=test_share, seed=seed, stratify=("label",))
        side_of_text = {r["text"]: assignment[r["key"]] for r in records}
        span_records = [{"key": key, "label": int(s.consequent_start != -1), "text": text}
                        for key, (text, s, _) in all_spans.items() if text not in side_of_text]
        span_assignment, _ = splits.split(span_records, test_share=test_share, seed=seed, stratify=("label",)) \
            if span_records else ({}, {})
        span_side = {key: side_of_text.get(text) or span_assignment[key] for key, (text, _, _) in all_spans.items()}
    options = _split_options(test_share, seed, ("label",), None)
    if keep_sides:
        options = {**options, "test_share": round(report["test_share"], 4), "seed": None, "stratify": [],
                   "sides": "as released"}
    version = DatasetVersion.objects.create(
        name=name, split_report=report,
        config={"source": "released", **{key: Path(path).name for key, path in files.items()},
                "subtask1": Path(subtask1_path).name, "subtask2": Path(subtask2_path).name if subtask2_path else None,
                "line_ends": line_ends, **options})
    DatasetSentence.objects.bulk_create(
        DatasetSentence(version=version, sentence_id=r["key"], text=r["text"], label=r["label"],
                        split=assignment[r["key"]]) for r in records)
    DatasetSpan.objects.bulk_create(
        DatasetSpan(version=version, sentence_id=key, text=text, split=span_side[key],
                    antecedent_start=s.antecedent_start, antecedent_end=s.antecedent_end,
                    consequent_start=s.consequent_start, consequent_end=s.consequent_end)
        for key, (text, s, _) in all_spans.items())
    return version


def _refuse_repeats(keys: list[tuple[str, Any]], task: str) -> None:
    seen: dict[str, Any] = {}
    for key, path in keys:
        if key in seen:
            raise DatasetError(f"{path}: sentenceID {key} is also in {seen[key]}; a {task} sentence belongs to one "
                               f"side only")
        seen[key] = path


# --- statistics --------------------------------------------------------------------

def table1(version: DatasetVersion) -> dict[str, dict[str, int]]:
    """The paper's Table 1: counterfactual / non-counterfactual per split."""
    return selectors.version_tables([version.pk])[version.pk]["table1"]


def table2(version: DatasetVersion) -> dict[str, dict[str, int]]:
    """The paper's Table 2: antecedent only / antecedent and consequent per split."""
    return selectors.version_tables([version.pk])[version.pk]["table2"]


def word_counts(version: DatasetVersion) -> dict[str, dict[str, dict[str, float]]]:
    """Words per sentence (whitespace tokens) per task and side: the numbers behind the Appendix C plot."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for task, queryset in (("subtask1", version.sentences), ("subtask2", version.spans)):
        found[task] = {}
        for side in (*Split.values, "total"):
            chosen = queryset if side == "total" else queryset.filter(split=side)
            counts = [len(text.split()) for text in chosen.values_list("text", flat=True).iterator()]
            found[task][side] = ({"sentences": len(counts), "mean": round(statistics.fmean(counts), 2),
                                  "median": statistics.median(counts), "max": max(counts)} if counts else
                                 {"sentences": 0, "mean": 0.0, "median": 0, "max": 0})
    return found


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

    # An imported version writes its rows in the order of the files they came from, each file with its own
    # last-line convention: a version that kept the released sides gives those files back byte for byte.
    order = "pk" if version.config.get("source") == "released" else "sentence_id"
    line_ends = version.config.get("line_ends", {})
    sentences = list(version.sentences.order_by(order))
    spans = list(version.spans.order_by(order))
    for side in Split.values:
        write(f"subtask1_{side}.csv", formats.subtask1_csv(
            ((s.sentence_id, s.label, s.text) for s in sentences if s.split == side),
            final_line_end=line_ends.get(f"subtask1_{side}", True)))
        if spans:
            write(f"subtask2_{side}.csv", formats.subtask2_csv(
                ((s.sentence_id, s.text, _spans(s)) for s in spans if s.split == side),
                final_line_end=line_ends.get(f"subtask2_{side}", True)))
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


def _split_line(config: dict[str, Any], report: dict[str, Any]) -> str:
    if config.get("sides") == "as released":
        return (f"- split: the released train and test files kept as they are ({report['train']} train / "
                f"{report['test']} test sentences)")
    grouping = (f"grouped by {config['group']}" + (f"; {report['ungrouped']} sentences had no {config['group']} "
                                                  f"and were split one by one" if report.get("ungrouped") else "")
                if config.get("group") else
                f"not grouped ({report.get('documents_on_both_sides', 0)} source documents have sentences on both "
                f"sides)")
    return (f"- split: {1 - config['test_share']:.0%} train / {config['test_share']:.0%} test, seed {config['seed']}, "
            f"stratified by {', '.join(config['stratify']) or 'nothing'}, {grouping}")


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


# One column type per field, whatever the data: an imported version has no votes, and Arrow would make
# `votes_yes` a null column there and int64 elsewhere.
SUBTASK1_FEATURES = (("sentenceID", "string"), ("gold_label", "int64"), ("sentence", "string"), ("split", "string"),
                     ("domain", "string"), ("document", "string"), ("votes_yes", "int64"), ("votes_no", "int64"),
                     ("agreement", "float64"), ("outcome", "string"))
SUBTASK2_FEATURES = (("sentenceID", "string"), ("sentence", "string"), ("antecedent", "string"),
                     ("consequent", "string"), ("antecedent_startid", "int64"), ("antecedent_endid", "int64"),
                     ("consequent_startid", "int64"), ("consequent_endid", "int64"))


def _parquet(records: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(name, pa.float64() if kind == "float64" else pa.int64() if kind == "int64" else pa.string())
                        for name, kind in SUBTASK1_FEATURES])
    pq.write_table(pa.Table.from_pylist(records, schema=schema), path)


PAPER_CITATION = """@inproceedings{yang-etal-2020-semeval,
    title = "{S}em{E}val-2020 Task 5: Counterfactual Recognition",
    author = "Yang, Xiaoyu and Obadinma, Stephen and Zhao, Huasha and Zhang, Qiong and Matwin, Stan and Zhu, Xiaodan",
    booktitle = "Proceedings of the Fourteenth Workshop on Semantic Evaluation",
    year = "2020",
    publisher = "International Committee for Computational Linguistics",
    pages = "322--335"
}"""


def _size_category(count: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if count < limit:
            return name
    return "1M<n<10M"


def card_metadata(version: DatasetVersion, statistics: dict[str, Any], has_spans: bool) -> dict[str, Any]:
    """The Hugging Face dataset card's YAML: licence, sizes, creators, a default config per file format,
    and the features of each config (the columns and their types, fixed whatever the data)."""
    t1 = statistics["table1"]
    released = version.config.get("source") == "released"

    def info(name: str, features: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        # Features make `load_dataset` read sentenceID as a string, as the files mean it, not as a number.
        return {"config_name": name, "features": [{"name": n, "dtype": kind} for n, kind in features]}

    def files(name: str, prefix: str, default: bool = False) -> dict[str, Any]:
        found: dict[str, Any] = {"config_name": name, "data_files": [
            {"split": side, "path": f"{prefix}_{side}.csv"} for side in Split.values]}
        return {**found, "default": True} if default else found

    # CSV configs only: `datasets` reads every config of a folder with one builder (CSV here), so the
    # Parquet and JSONL files are named in the card's text instead.
    configs = [files("subtask1", "subtask1", default=True)]
    dataset_info = [info("subtask1", SUBTASK1_FEATURES[:3])]
    if has_spans:
        configs.append(files("subtask2", "subtask2"))
        dataset_info.append(info("subtask2", SUBTASK2_FEATURES))
    return {
        "pretty_name": f"{version.name}: counterfactual statements (SemEval-2020 Task 5 format)",
        "license": "cc-by-4.0" if released else settings.DATASET_LICENSE,
        "language": ["en"], "multilinguality": ["monolingual"],
        "task_categories": ["text-classification", "token-classification"],
        "task_ids": ["multi-class-classification"],
        "size_categories": [_size_category(t1["total"]["total"])],
        "annotations_creators": ["crowdsourced"], "language_creators": ["found"],
        "source_datasets": ["original"],
        "configs": configs, "dataset_info": dataset_info,
    }


def _provenance(version: DatasetVersion) -> list[str]:
    """Where a built version's labels came from: the batch, its crowd and pay, the rules and the agreement."""
    run = AggregationRun.objects.filter(pk=version.config.get("aggregation_run")).select_related("batch").first()
    if run is None:
        return ["## Provenance", "", "The released SemEval-2020 Task 5 files, labeled by their organizers: "
                "five crowd votes per sentence, positive at 5 of 5, negative at 5 of 5 and some at 4 of 5.", ""]
    batch = run.batch

    def alpha(found: dict[str, Any]) -> str:
        if found.get("alpha") is None:
            return "not measurable"
        return f"{found['alpha']:.3f} [{found['low']:.3f}, {found['high']:.3f}] over {found['items']} sentences"

    overall = {"alpha": run.alpha, "low": run.alpha_low, "high": run.alpha_high,
               "items": sum(run.summary.get("outcomes", {}).values())}
    lines = ["## Provenance", "",
             f"- batch {batch.pk} ({batch.name}): {batch.hits.count()} HITs of {batch.items.count()} items on "
             f"{batch.provider}, {batch.assignments_per_hit} workers a HIT, {batch.reward} a HIT, spent "
             f"{batch.spent()}",
             f"- aggregation rules used: {run.rules_text}",
             f"- Krippendorff's alpha: {alpha(overall)}"]
    lines += [f"  - {domain}: {alpha(found)}" for domain, found in sorted(run.summary.get("by_domain", {}).items())]
    lines += _span_provenance(run)
    gold = run.summary.get("gold") or {}
    if gold.get("items"):
        lines.append(f"- known-answer items (not in the data): {gold['items']}, the aggregated labels right on "
                     f"{gold['accuracy']:.1%}")
    return [*lines, ""]


def _span_provenance(run: AggregationRun) -> list[str]:
    """The span batches of the run's positives: how many annotated each sentence and, with two or more, how
    far they agreed (token F1 and token alpha, `aggregation.span_maths`), over the batch and per domain."""
    lines = []
    for batch in Batch.objects.filter(items__span_annotation__source_item__batch=run.batch).distinct().order_by("pk"):
        lines.append(f"- span batch {batch.pk} ({batch.name}): {batch.assignments_per_hit} annotator(s) a sentence"
                     + ("; the review started from the majority's spans" if batch.assignments_per_hit > 1 else ""))
        if batch.assignments_per_hit > 1:
            found = span_batch_agreement(batch=batch)
            lines.append(f"  - span agreement: {span_agreement_text(found)}")
            lines += [f"  - {domain}: {span_agreement_text(row)}" for domain, row in found["by_domain"].items()]
    return lines


def _domains_line(version: DatasetVersion) -> str:
    """The card's first limitation, naming the domains the version's sentences really come from."""
    domains = sorted(domain for domain in set(version.sentences.values_list("domain", flat=True)) if domain)
    where = (f"news in {counted(len(domains), 'domain')} ({', '.join(domains)})" if domains
             else "news text whose domain was not recorded")
    return (f"- Sentences come from {where} and were picked by a pattern filter first, so counterfactuals without "
            f"any of its patterns are under-represented.")


def dataset_card(version: DatasetVersion, statistics: dict[str, Any], has_spans: bool) -> str:
    import yaml  # PyYAML, only here: the card's front matter

    t1, t2 = statistics["table1"], statistics["table2"]
    config = version.config
    released = config.get("source") == "released"
    lines = [
        "---", yaml.safe_dump(card_metadata(version, statistics, has_spans), sort_keys=False,
                              allow_unicode=True).rstrip("\n"), "---", "", f"# {version.name}", "",
        "Counterfactual statements in news text, in the file formats of SemEval-2020 Task 5: Counterfactual "
        "Recognition (Yang et al., 2020) (subtask1_*.csv: sentenceID,gold_label,sentence; subtask2_*.csv: "
        "end-inclusive character offsets, `{}` and -1/-1 when there is no consequent).", "",
        "## Sizes", "",
        "| split | counterfactual | non-counterfactual | total |", "| --- | --- | --- | --- |",
        *[f"| {side} | {row['counterfactual']} | {row['non_counterfactual']} | {row['total']} |"
          for side, row in t1.items()], "",
    ]
    if has_spans:
        lines += ["| split | antecedent only | antecedent and consequent | total |", "| --- | --- | --- | --- |",
                  *[f"| {side} | {row['antecedent_only']} | {row['antecedent_and_consequent']} | {row['total']} |"
                    for side, row in t2.items()], ""]
    lines += _provenance(version)
    report = statistics["split"]
    lines += [
        "## How it was made", "",
        f"- source: {config.get('source')}" + (f", aggregation run {config['aggregation_run']} of batch "
                                               f"{config['batch']}" if config.get("aggregation_run") else ""),
        f"- labeling rules: {config.get('rules', 'as released')}",
        _split_line(config, report),
        "- agreement: `subtask1.jsonl` and `subtask1.parquet` carry per-sentence vote counts and agreement",
        "- `subtask1_spreadsheet.csv` is for spreadsheets: cells starting with = + - @ are prefixed with ' there; "
        "the SemEval CSVs keep every sentence exactly as written", "",
        "Load with `datasets.load_dataset(FOLDER)` (the default config, `subtask1`) or "
        "`datasets.load_dataset(FOLDER, \"subtask2\")`. `subtask1.parquet` and `subtask1.jsonl` hold every "
        "sentence with its split, domain, document, votes, agreement and outcome: "
        "`datasets.load_dataset(\"parquet\", data_files=\"FOLDER/subtask1.parquet\")`.", "",
        "## Known limitations", "",
        _domains_line(version),
        "- A sentence is positive only when every annotator said so; sentences without a clear majority are "
        "left out, so the data is easier than the text it came from.", "",
        "## Citation", "",
        *(["The data is the released SemEval-2020 Task 5 data; cite the task:", "", "```bibtex", PAPER_CITATION,
            "```"] if released else
          ["The collection follows the SemEval-2020 Task 5 design; cite the task when you compare with it:", "",
           "```bibtex", PAPER_CITATION, "```"]), "",
    ]
    return "\n".join(lines)
