"""Workflows of the annotation app: candidates into Subtask-1 work, sentences
into Subtask-2 work, span answers into reviewable annotations."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from os import PathLike
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import SpanAnnotation, SpanAnswer, SpanChange
from core import spans
from core.items import SentenceItem
from core.semeval import read_subtask1_rows
from filtering.models import Candidate, FilterRun
from hits.models import Assignment, Batch, Item
from hits.services import CrowdError, ItemSpec, batch_create

RELEASED_CORPUS = "semeval2020t5"


def subtask1_items(*, run: FilterRun, limit: int | None = None,
                   candidate_ids: Collection[int] | None = None) -> list[ItemSpec]:
    """Items for the Subtask-1 labeling task, one per candidate of a filter run (or of `candidate_ids`)."""
    candidates = (Candidate.objects.filter(run=run).select_related("sentence__document__corpus")
                  .order_by("sentence_id"))
    if candidate_ids is not None:
        candidates = candidates.filter(pk__in=candidate_ids)
    if limit:
        candidates = candidates[:limit]
    found = []
    for candidate in candidates:
        sentence, document = candidate.sentence, candidate.sentence.document
        payload = SentenceItem(text=sentence.text, sentence_id=str(sentence.pk), domain=document.domain,
                               document=document.external_id, corpus=document.corpus.name, sentence_pk=sentence.pk)
        found.append(ItemSpec(key=f"sentence:{sentence.pk}", group=document.domain, payload=payload))
    return found


def _released_item(sentence_id: str, label: int, text: str, group: str) -> ItemSpec:
    return ItemSpec(key=f"semeval:{sentence_id}", group=group, gold_answer=label,
                    payload=SentenceItem(text=text, sentence_id=sentence_id, corpus=RELEASED_CORPUS))


def semeval_gold_items(*, path: str | PathLike[str], count: int, seed: int = 0,
                       exclude: Collection[str] = ()) -> list[ItemSpec]:
    """`count` known-answer check items from a released Subtask-1 CSV, half of each label when it can."""
    rows: dict[int, list[tuple[str, int, str]]] = {0: [], 1: []}
    for row in read_subtask1_rows(path):
        if row[0] not in exclude:
            rows[row[1]].append(row)
    rng = random.Random(seed)
    positives = rng.sample(rows[1], min(len(rows[1]), count // 2))
    negatives = rng.sample(rows[0], min(len(rows[0]), count - len(positives)))
    return [_released_item(*row, group="gold") for row in positives + negatives]


def semeval_items(*, path: str | PathLike[str], count: int, seed: int = 0,
                  exclude: Collection[str] = ()) -> list[ItemSpec]:
    """`count` sentences of a released Subtask-1 CSV as items that carry their known label.

    `exclude`: sentence ids to leave out, e.g. those of the screening test."""
    rows = [row for row in read_subtask1_rows(path) if row[0] not in exclude]
    return [_released_item(*row, group="semeval") for row in random.Random(seed).sample(rows, min(count, len(rows)))]


def subtask1_batch_create(*, run: FilterRun, name: str, gold_path: str | PathLike[str] | None = None,
                          gold_count: int = 0, gold_rate: float = 0.0, seed: int = 0, limit: int | None = None,
                          candidate_ids: Collection[int] | None = None, exclude_gold: Collection[str] = (),
                          **options: Any) -> Batch:
    items = subtask1_items(run=run, limit=limit, candidate_ids=candidate_ids)
    if not items:
        raise CrowdError(f"filter run {run.pk} has no candidates; run the filter first")
    gold = (semeval_gold_items(path=gold_path, count=gold_count, seed=seed, exclude=exclude_gold)
            if gold_path and gold_count else [])
    return batch_create(name=name, task_type="subtask1", items=items, gold_items=gold, gold_rate=gold_rate,
                        seed=seed, **options)


# --- Subtask 2: spans for the positives ------------------------------------------------

def subtask2_items(*, sources: Iterable[Item]) -> list[ItemSpec]:
    """One span item per Subtask-1 item in `sources`, unless the sentence is in a span batch already."""
    taken = set(Item.objects.filter(batch__task_type="subtask2").values_list("key", flat=True))
    found = []
    for source in sources:
        if source.key in taken:
            continue
        payload = source.content
        assert isinstance(payload, SentenceItem)
        found.append(ItemSpec(key=source.key, group=source.group, payload=replace(payload, source_item=source.pk)))
    return found


def subtask2_batch_create(*, sources: Sequence[Item], name: str, items_per_hit: int = 10, annotators: int = 1,
                          **options: Any) -> Batch:
    """A Subtask-2 batch of sentences the crowd called counterfactual: one annotator per sentence, as in the
    paper, or `annotators` (2 or more) for span agreement and a majority to start the review from."""
    if annotators < 1:
        raise CrowdError(f"annotators per sentence is {annotators}; use 1 (the paper) or more")
    items = subtask2_items(sources=sources)
    if not items:
        raise CrowdError("no positive sentence without spans yet; nothing to annotate")
    return batch_create(name=name, task_type="subtask2", items=items, items_per_hit=items_per_hit,
                        assignments_per_hit=annotators, **options)


def _snapshot(annotation: SpanAnnotation) -> dict[str, Any]:
    return {"state": annotation.state, "flagged": annotation.flagged, "spans": annotation.spans()}


def _as_spans(answer: SpanAnswer) -> spans.Spans:
    return spans.Spans(*answer.spans())


def spans_record_submission(*, assignment: Assignment) -> None:
    """A submitted Subtask-2 assignment: one SpanAnswer per sentence (a replayed submission adds none), and
    each sentence's SpanAnnotation set to what its answers so far propose, until an organizer reviews it
    (called by the task type's on_submitted)."""
    items = {str(item.pk): item for item in assignment.hit.items.all()}
    known = set(SpanAnswer.objects.filter(assignment=assignment).values_list("item_id", flat=True))
    for key, answer in (assignment.answers or {}).items():
        item = items[key]
        if item.pk in known:
            continue
        a_start, a_end = answer.get("antecedent", (-1, -1))
        c_start, c_end = answer.get("consequent", (-1, -1))
        SpanAnswer.objects.create(item=item, assignment=assignment, worker=assignment.worker,
                                  counterfactual=answer["counterfactual"], reason=answer.get("reason", ""),
                                  antecedent_start=a_start, antecedent_end=a_end,
                                  consequent_start=c_start, consequent_end=c_end)
        _propose(item, assignment)


def _propose(item: Item, assignment: Assignment) -> None:
    """The item's annotation from all its answers: the one answer as it is, several by their majority."""
    payload = item.content
    assert isinstance(payload, SentenceItem)
    answers = list(SpanAnswer.objects.filter(item=item).select_related("worker__user").order_by("pk"))
    annotation = SpanAnnotation.objects.select_for_update().filter(item=item).first()
    if annotation is not None and annotation.state != SpanAnnotation.State.UNREVIEWED:
        return  # reviewed: a late answer is kept and shown, the organizer's decision stands
    before = _snapshot(annotation) if annotation else None
    annotation = annotation or SpanAnnotation(item=item, source_item_id=payload.source_item, text=payload.text)
    doubting = [answer for answer in answers if not answer.counterfactual]
    marked = [answer for answer in answers if answer.counterfactual]
    if len(answers) == 1:
        proposed = _as_spans(marked[0]) if marked else None
        annotation.assignment, annotation.worker = assignment, assignment.worker
        annotation.flag_reason = doubting[0].reason if doubting else ""
    else:
        proposed = spans.majority_spans(payload.text, [_as_spans(answer) for answer in marked])
        annotation.assignment = annotation.worker = None
        reasons = [f"{answer.worker}: {answer.reason}" if answer.reason else str(answer.worker)
                   for answer in doubting]
        annotation.flag_reason = (f"{len(doubting)} of {len(answers)} annotators say it is not counterfactual"
                                  + (f" ({'; '.join(reasons)})" if reasons else "")) if doubting else ""
        if marked and proposed is None:
            annotation.flag_reason = "; ".join(filter(None, [
                annotation.flag_reason, "no word is in a majority's antecedent: mark it"]))
    annotation.flagged = bool(annotation.flag_reason) or bool(doubting)
    found = proposed or spans.Spans(-1, -1)
    annotation.antecedent_start, annotation.antecedent_end = found.antecedent_start, found.antecedent_end
    annotation.consequent_start, annotation.consequent_end = found.consequent_start, found.consequent_end
    annotation.save()
    SpanChange.objects.create(annotation=annotation, action=SpanChange.Action.SUBMITTED, worker=assignment.worker,
                              before=before, after=_snapshot(annotation),
                              note="" if len(answers) == 1 else f"majority of {len(answers)} answers")


def span_answers(annotation: SpanAnnotation) -> dict[str, Any]:
    """Each annotator's answer for the annotation's sentence and, with two or more, how far they agree (token
    F1 over every pair, per kind and both) and the spans their majority draws (None when no word is in a
    majority's antecedent)."""
    answers = list(SpanAnswer.objects.filter(item_id=annotation.item_id).select_related("worker__user")
                   .order_by("pk"))
    marked = [_as_spans(answer) for answer in answers if answer.counterfactual]
    agree, differ, pairs = spans.pair_counts([spans.word_labels(annotation.text, each) for each in marked])
    return {"rows": [{"answer": answer} for answer in answers], "pairs": pairs, "f1": spans.f1_scores(agree, differ),
            "majority": spans.majority_spans(annotation.text, marked)}


def span_review(*, annotation: SpanAnnotation, user: Any, action: str, antecedent: tuple[int, int] | None = None,
                consequent: tuple[int, int] | None = None, note: str = "") -> SpanAnnotation:
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
