"""Workflows of the annotation app: turning candidates into Subtask-1 work."""

import csv
import random

from filtering.models import Candidate
from hits.services import CrowdError, batch_create

SEMEVAL_COLUMNS = ("sentenceID", "gold_label", "sentence")


def subtask1_items(*, run, limit=None, candidate_ids=None):
    """Items for the Subtask-1 labeling task, one per candidate of a filter run (or of `candidate_ids`)."""
    candidates = (Candidate.objects.filter(run=run).select_related("sentence__document")
                  .order_by("sentence_id"))
    if candidate_ids is not None:
        candidates = candidates.filter(pk__in=candidate_ids)
    if limit:
        candidates = candidates[:limit]
    return [{"key": f"sentence:{c.sentence_id}", "group": c.sentence.document.domain,
             "payload": {"text": c.sentence.text, "domain": c.sentence.document.domain,
                         "sentence_id": c.sentence_id}}
            for c in candidates]


def read_semeval(path):
    """Rows of a released Subtask-1 CSV, checked: the columns are there and every label is 0 or 1."""
    rows = []
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [column for column in SEMEVAL_COLUMNS if column not in (reader.fieldnames or [])]
        if missing:
            raise CrowdError(f"{path}:1: missing column(s) {', '.join(missing)}; "
                             f"expected {','.join(SEMEVAL_COLUMNS)}")
        for row in reader:
            if row["gold_label"].strip() not in ("0", "1"):
                raise CrowdError(f"{path}:{reader.line_num}: gold_label {row['gold_label']!r} is not 0 or 1")
            rows.append(row)
    return rows


def _semeval_item(row, group):
    return {"key": f"semeval:{row['sentenceID']}", "group": group, "gold_answer": int(row["gold_label"]),
            "payload": {"text": row["sentence"], "source": f"semeval:{row['sentenceID']}"}}


def semeval_gold_items(*, path, count, seed=0, exclude=()):
    """`count` known-answer check items from a released Subtask-1 CSV, half of each label when it can."""
    rows = {"0": [], "1": []}
    for row in read_semeval(path):
        if row["sentenceID"] not in exclude:
            rows[row["gold_label"].strip()].append(row)
    rng = random.Random(seed)
    positives = rng.sample(rows["1"], min(len(rows["1"]), count // 2))
    negatives = rng.sample(rows["0"], min(len(rows["0"]), count - len(positives)))
    return [_semeval_item(row, "gold") for row in positives + negatives]


def semeval_items(*, path, count, seed=0, exclude=()):
    """`count` sentences of a released Subtask-1 CSV as items that carry their known label.

    `exclude`: sentence ids to leave out, e.g. those of the screening test."""
    rows = [row for row in read_semeval(path) if row["sentenceID"] not in exclude]
    return [_semeval_item(row, "semeval") for row in random.Random(seed).sample(rows, min(count, len(rows)))]


def subtask1_batch_create(*, run, name, gold_path=None, gold_count=0, gold_rate=0.0, seed=0, limit=None,
                          candidate_ids=None, exclude_gold=(), **options):
    items = subtask1_items(run=run, limit=limit, candidate_ids=candidate_ids)
    if not items:
        raise CrowdError(f"filter run {run} has no candidates; run filter_candidates first")
    gold = (semeval_gold_items(path=gold_path, count=gold_count, seed=seed, exclude=exclude_gold)
            if gold_path and gold_count else [])
    return batch_create(name=name, task_type="subtask1", items=items, gold_items=gold, gold_rate=gold_rate,
                        seed=seed, **options)
