"""Workflows of the annotation app: Subtask-2 span answers into reviewable annotations, and the organizers' review.
(Subtask 1 and 2 batches are designs/semeval-subtask1.yaml's and semeval-subtask2.yaml's: designs/semeval.py.)"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import SpanAnnotation, SpanAnswer, SpanChange
from core import spans
from core.items import SentenceItem
from hits.models import Assignment, Item
from hits.services import CrowdError

# The component of a span design (designs/semeval-subtask2.yaml) whose answers go to the review (annotation.apps).
SPAN_REVIEW = "counterfactual-check"
REASON_LIMIT = 500  # characters of a "not counterfactual" answer's reason


def _snapshot(annotation: SpanAnnotation) -> dict[str, Any]:
    return {"state": annotation.state, "flagged": annotation.flagged, "spans": annotation.spans()}


def _as_spans(answer: SpanAnswer) -> spans.Spans:
    return spans.Spans(*answer.spans())


def span_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """A Subtask-2 design answer ({"counterfactual": "yes"|"no", "spans": [{start, end, label}], "reason"}; end
    exclusive) as a SpanAnswer's fields (end inclusive, -1 for no consequent)."""
    marked = {span["label"]: (span["start"], span["end"] - 1) for span in answer.get("spans") or []}
    reason = answer.get("reason") or ""
    return {"counterfactual": answer.get("counterfactual") == "yes",
            "reason": (reason if isinstance(reason, str) else " ".join(map(str, reason.values())))[:REASON_LIMIT],
            "antecedent": marked.get("antecedent", (-1, -1)), "consequent": marked.get("consequent", (-1, -1))}


def spans_record_submission(assignment: Assignment) -> None:
    """A submitted Subtask-2 assignment: one SpanAnswer per sentence (a replayed submission adds none), and
    each sentence's SpanAnnotation set to what its answers so far propose, until an organizer reviews it
    (the span review's component, SPAN_REVIEW, of designs/semeval-subtask2.yaml; see annotation.apps)."""
    items = {str(item.pk): item for item in assignment.hit.items.all()}
    known = set(SpanAnswer.objects.filter(assignment=assignment).values_list("item_id", flat=True))
    for key, answer in (assignment.answers or {}).items():
        item = items[key]
        if item.pk in known:
            continue
        found = span_answer(answer)
        (a_start, a_end), (c_start, c_end) = found["antecedent"], found["consequent"]
        SpanAnswer.objects.create(item=item, assignment=assignment, worker=assignment.worker,
                                  counterfactual=found["counterfactual"], reason=found["reason"],
                                  antecedent_start=a_start, antecedent_end=a_end,
                                  consequent_start=c_start, consequent_end=c_end)
        _propose(item, assignment)


def spans_withdraw_submission(assignment: Assignment) -> None:
    """Withdrawn work (its worker took it back): its SpanAnswers go (the Withdrawal keeps the answers), and each
    unreviewed sentence it answered is proposed again from the answers left, or waits for new ones."""
    answered = list(SpanAnswer.objects.filter(assignment=assignment).values_list("item_id", flat=True))
    SpanAnswer.objects.filter(assignment=assignment).delete()
    for item in Item.objects.filter(pk__in=answered):
        annotation = SpanAnnotation.objects.select_for_update().filter(item=item).first()
        if annotation is None or annotation.state != SpanAnnotation.State.UNREVIEWED:
            continue  # reviewed: the organizer's decision stands, as it does for a late answer
        remaining = SpanAnswer.objects.filter(item=item).select_related("assignment").order_by("pk").first()
        if remaining is None:
            before = _snapshot(annotation)
            annotation.assignment = annotation.worker = None
            annotation.antecedent_start = annotation.antecedent_end = -1
            annotation.consequent_start = annotation.consequent_end = -1
            annotation.flagged, annotation.flag_reason = True, "its only answer was withdrawn; it waits for another"
            annotation.save()
            SpanChange.objects.create(annotation=annotation, action=SpanChange.Action.SUBMITTED,
                                      worker=assignment.worker, before=before, after=_snapshot(annotation),
                                      note="the answer was withdrawn by its worker")
            continue
        _propose(item, remaining.assignment)


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
