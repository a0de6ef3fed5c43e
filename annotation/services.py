"""Workflows of the annotation app: candidates into Subtask-1 work, Subtask-1
positives into Subtask-2 work, span answers into reviewable annotations."""

import csv
import random

from django.db import transaction
from django.utils import timezone

from aggregation.maths import POSITIVE
from annotation import spans
from annotation.models import SpanAnnotation, SpanChange
from filtering.models import Candidate
from hits.models import Item
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


# --- Subtask 2: spans for the positives ------------------------------------------------

def subtask2_items(*, run):
    """One item per sentence the aggregation called counterfactual, unless it is in a span batch already."""
    taken = set(Item.objects.filter(batch__task_type="subtask2").values_list("key", flat=True))
    positives = (run.outcomes.filter(outcome=POSITIVE, item__is_gold=False).select_related("item")
                 .order_by("item_id"))
    return [{"key": outcome.item.key, "group": outcome.item.group,
             "payload": {**outcome.item.payload, "source_item": outcome.item_id}}
            for outcome in positives if outcome.item.key not in taken]


def subtask2_batch_create(*, run, name, items_per_hit=10, **options):
    """A Subtask-2 batch of an aggregation's positives: one annotator per sentence, as in the paper."""
    items = subtask2_items(run=run)
    if not items:
        raise CrowdError(f"aggregation {run.pk} has no positive sentence without spans yet; nothing to annotate")
    return batch_create(name=name, task_type="subtask2", items=items, items_per_hit=items_per_hit,
                        assignments_per_hit=1, **options)


def _snapshot(annotation):
    return {"state": annotation.state, "flagged": annotation.flagged, "spans": annotation.spans()}


def spans_record_submission(sender, assignment, **kwargs):
    """A submitted Subtask-2 assignment becomes one SpanAnnotation per sentence (receiver of
    hits.signals.assignment_submitted; the sentence's first answer is the one kept)."""
    if sender != "subtask2":
        return
    items = {str(item.pk): item for item in assignment.hit.items.all()}
    stored = set(SpanAnnotation.objects.filter(item__in=items.values()).values_list("item_id", flat=True))
    for key, answer in (assignment.answers or {}).items():
        item = items[key]
        if item.pk in stored:
            continue
        a_start, a_end = answer.get("antecedent", (-1, -1))
        c_start, c_end = answer.get("consequent", (-1, -1))
        annotation = SpanAnnotation.objects.create(
            item=item, source_item_id=item.payload.get("source_item"), assignment=assignment,
            worker=assignment.worker, text=item.payload["text"], flagged=not answer["counterfactual"],
            antecedent_start=a_start, antecedent_end=a_end, consequent_start=c_start, consequent_end=c_end)
        SpanChange.objects.create(annotation=annotation, action=SpanChange.Action.SUBMITTED,
                                  worker=assignment.worker, after=_snapshot(annotation))


def span_review(*, annotation, user, action, antecedent=None, consequent=None, note=""):
    """An organizer's decision on one annotation; every call leaves a SpanChange.

    action "accept": keep the spans, with `antecedent`/`consequent` word ranges
    (consequent None = no consequent) replacing them when given and different;
    "remove": the sentence is not counterfactual.
    """
    if action not in ("accept", "remove"):
        raise CrowdError(f"unknown review action {action!r}; use accept or remove")
    with transaction.atomic():
        annotation = SpanAnnotation.objects.select_for_update().get(pk=annotation.pk)
        before = _snapshot(annotation)
        if action == "remove":
            annotation.state = SpanAnnotation.State.REMOVED
            change = SpanChange.Action.REMOVED
        else:
            if antecedent is not None:
                found = spans.offsets(annotation.text, antecedent, consequent)
                annotation.antecedent_start, annotation.antecedent_end = found.antecedent_start, found.antecedent_end
                annotation.consequent_start, annotation.consequent_end = found.consequent_start, found.consequent_end
            elif annotation.antecedent_start < 0:
                raise spans.SpanError(f"annotation {annotation.pk} has no antecedent; mark one before accepting")
            annotation.state = SpanAnnotation.State.ACCEPTED
            changed = annotation.spans() != before["spans"]
            change = SpanChange.Action.ADJUSTED if changed else SpanChange.Action.ACCEPTED
        annotation.reviewed_by, annotation.reviewed = user, timezone.now()
        annotation.save()
        SpanChange.objects.create(annotation=annotation, action=change, user=user, before=before,
                                  after=_snapshot(annotation), note=note)
    return annotation
