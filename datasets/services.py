"""Dataset workflows: freeze labeled sentences into a version with a split,
import the released files, export every format with statistics and a card."""

import json
from collections import Counter
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from aggregation import maths
from annotation.models import SpanAnnotation
from datasets import formats, splits
from datasets.models import DatasetSentence, DatasetSpan, DatasetVersion, Split
from datasets.scorer import ScoreError, Spans
from filtering.models import Sentence

LABELS = {maths.POSITIVE: 1, maths.NEGATIVE_100: 0, maths.NEGATIVE_80: 0}


class DatasetError(ValueError):
    pass


def _split_options(test_share, seed, stratify, group):
    return {"test_share": test_share, "seed": seed, "stratify": list(stratify), "group": group}


@transaction.atomic
def dataset_from_aggregation(*, run, name, test_share=0.35, seed=0, stratify=("label",), group=None):
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
    sentence_ids = [o.item.payload.get("sentence_id") for o in outcomes if o.item.payload.get("sentence_id")]
    documents = dict(Sentence.objects.filter(pk__in=sentence_ids).values_list("pk", "document__external_id"))
    records, removed, spans = [], 0, {}
    for outcome in outcomes:
        annotation = reviewed.get(outcome.item_id)
        if annotation and annotation.state == SpanAnnotation.State.REMOVED:
            removed += 1
            continue
        payload = outcome.item.payload
        source = payload.get("source", "")
        key = source.split(":", 1)[1] if source.startswith("semeval:") else str(payload.get("sentence_id") or
                                                                                  outcome.item.key)
        if annotation and LABELS[outcome.outcome] == 1:
            spans[key] = annotation
        records.append({"key": key, "label": LABELS[outcome.outcome], "text": payload["text"],
                        "domain": payload.get("domain") or outcome.item.group,
                        "document": documents.get(payload.get("sentence_id"), ""), "yes": outcome.yes,
                        "no": outcome.no, "outcome": outcome.outcome})
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
def dataset_import_released(*, name, subtask1_path, subtask2_path=None, test_share=0.35, seed=0):
    """The released files as a version, split again (stratified by label); a Subtask-2
    sentence that is also in Subtask 1 (same text) goes to the same side."""
    if DatasetVersion.objects.filter(name=name).exists():
        raise DatasetError(f"a dataset version named {name!r} exists; versions are frozen, pick a new name")
    try:
        rows = formats.read_subtask1_rows(subtask1_path)
        spans = formats.read_subtask2_gold(subtask2_path) if subtask2_path else {}
    except ScoreError as error:
        raise DatasetError(str(error)) from None
    records = [{"key": key, "label": label, "text": text} for key, label, text in rows]
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

def table1(version):
    """The paper's Table 1: counterfactual / non-counterfactual per split."""
    counts = Counter(version.sentences.values_list("split", "label"))
    rows = {side: {"counterfactual": counts[side, 1], "non_counterfactual": counts[side, 0],
                   "total": counts[side, 1] + counts[side, 0]} for side in Split.values}
    rows["total"] = {key: rows["train"][key] + rows["test"][key] for key in rows["train"]}
    return rows


def table2(version):
    """The paper's Table 2: antecedent only / antecedent and consequent per split."""
    counts = Counter((side, start != -1) for side, start in version.spans.values_list("split", "consequent_start"))
    rows = {side: {"antecedent_only": counts[side, False], "antecedent_and_consequent": counts[side, True],
                   "total": counts[side, False] + counts[side, True]} for side in Split.values}
    rows["total"] = {key: rows["train"][key] + rows["test"][key] for key in rows["train"]}
    return rows


def format_table(title, table):
    columns = list(table["train"])
    lines = [title, "  " + f"{'':<8}" + "".join(f"{c.replace('_', ' '):>28}" for c in columns)]
    for side, row in table.items():
        lines.append("  " + f"{side:<8}" + "".join(f"{row[c]:>28,}" for c in columns))
    return "\n".join(lines)


def word_count_plot(version, path):
    """Histograms of words per sentence, per subtask and split, as the paper's Appendix C figure."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(1, 2, figsize=(11, 4))
    for axis, (title, queryset) in zip(axes, (("Subtask 1", version.sentences), ("Subtask 2", version.spans)),
                                       strict=True):
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
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


# --- export --------------------------------------------------------------------------

def dataset_export(*, version, folder):
    """Write every format of `version` into `folder`; returns the list of files written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def write(name, text):
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


def _spans(row):
    return Spans(row.antecedent_start, row.antecedent_end, row.consequent_start, row.consequent_end)


def _agreement(sentence):
    if sentence.votes_yes is None:
        return None
    total = sentence.votes_yes + sentence.votes_no
    return max(sentence.votes_yes, sentence.votes_no) / total if total else None


def _parquet(records, path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(records), path)


def dataset_card(version, statistics, has_spans):
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
