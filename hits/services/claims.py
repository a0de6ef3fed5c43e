"""In-house and on-site work: a worker claims a place in a HIT, keeps a draft, submits, returns or asks for more
time; claims whose time ran out free their places."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone

from hits import extensions, selectors
from hits.models import Assignment, Batch, Hit, HitItem, Worker, with_room
from hits.services.adaptive import batch_adapt
from hits.services.errors import CrowdError
from hits.task_types import AnswerError, get_task_type

# --- in-house work: claim and submit ----------------------------------------------

def worker_for_user(user: Any) -> Worker:
    worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=f"user-{user.pk}",
                                             defaults={"user": user})
    worker.user = user  # the request's own user object, with what it read of its roles and projects
    return worker


def assignment_claim(*, batch: Batch, worker: Worker) -> Assignment | None:
    """Give `worker` a place in the next HIT of `batch` they may take, or None.

    A worker who already holds an open HIT of the batch gets that one back,
    not a second. The HIT row is locked while its places are counted, so two
    workers racing for the last place cannot both get it; the unique
    constraint on (HIT, worker) keeps one worker from two places in one HIT.
    """
    refusal = worker_refusal(batch, worker)
    if refusal:
        raise CrowdError(refusal)  # a Refusal carries what the worker can do about it
    if batch.state != Batch.State.PUBLISHED:
        raise CrowdError(f"{batch.name} is {batch.state}, not open for work")
    now = timezone.now()
    assignments_expire_overdue(worker=worker, now=now)
    holding = Assignment.objects.filter(hit__batch=batch, worker=worker, state=Assignment.State.CLAIMED).first()
    if holding is not None:
        return holding
    held = Assignment.objects.holding(now).filter(hit__batch=batch, worker=worker)
    returned = Assignment.objects.filter(hit__batch=batch, worker=worker, returned=True)
    # Only gold items are in more than one HIT (batch_create puts every other item in exactly one,
    # and mixes gold in only at a gold rate), so only they can make a HIT one the worker has partly seen.
    seen_gold = list(HitItem.objects.filter(hit__assignments__in=held, item__is_gold=True)
                     .values_list("item_id", flat=True)) if batch.gold_rate else []
    # Counted per HIT in index order until 20 are found: the work stays small however many
    # assignments the batch has (a join and count over all of them grew with every submission).
    candidates = with_room(
        batch.hits.filter(state=Hit.State.PUBLISHED)
        .exclude(Exists(held.filter(hit=OuterRef("pk"))))
        .exclude(Exists(returned.filter(hit=OuterRef("pk"))))
        .exclude(Exists(HitItem.objects.filter(hit=OuterRef("pk"), item_id__in=seen_gold)))
        .exclude(Exists(HitItem.objects.filter(hit=OuterRef("pk"), item__excluded_workers=worker))), now,
    ).order_by("index").values_list("pk", flat=True)
    # A HIT another claim has locked is passed over at first, not waited for: a crowd arriving at once would
    # otherwise queue on the first open HIT, each holding a web process while it waits. Only when every
    # candidate was locked does the claim wait, in turn, for those.
    skipped = []
    for hit_id in list(candidates[:20]):
        taken, locked = _claim_place(hit_id, batch=batch, worker=worker, wait=False)
        if taken is not None:
            return taken
        if locked:
            skipped.append(hit_id)
    for hit_id in skipped:
        taken, _ = _claim_place(hit_id, batch=batch, worker=worker, wait=True)
        if taken is not None:
            return taken
    return None


def _claim_place(hit_id: int, *, batch: Batch, worker: Worker, wait: bool) -> tuple[Assignment | None, bool]:
    """(a new place in the HIT for `worker`, or None if it has none free; whether another claim held the HIT
    locked, when not waiting for it)."""
    try:
        with transaction.atomic():
            hit = Hit.objects.select_for_update(skip_locked=not wait).filter(pk=hit_id).first()
            if hit is None:
                return None, True
            hit.batch = batch  # its place count reads the batch's assignments per HIT
            now = timezone.now()
            overdue = Q(state=Assignment.State.CLAIMED, deadline__lt=now)
            counts = hit.assignments.live().aggregate(live=Count("pk", filter=~overdue),
                                                      overdue=Count("pk", filter=overdue))
            if counts["live"] >= hit.place_count:
                return None, False
            if counts["overdue"]:  # under the HIT's lock: their places go back before this one is taken
                assignments_expire_overdue(hit=hit, now=now)
            if counts["live"] + 1 >= hit.place_count:  # this place fills the HIT
                transaction.on_commit(lambda: selectors.open_hits_changed(batch))
            return Assignment.objects.create(hit=hit, worker=worker, claimed=now,
                                             deadline=now + timedelta(seconds=batch.assignment_duration)), False
    except IntegrityError:
        return None, False  # this worker claimed it in a parallel request


def assignment_submit(*, assignment: Assignment, worker: Worker,
                      raw_answers: dict[str, Any]) -> tuple[Assignment, bool]:
    """Store a worker's answers once. Returns (assignment, stored_now).

    A replay of the same submission returns the stored assignment unchanged;
    anything else that does not fit (another worker, time out, bad answers)
    is refused with a message.
    """
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().select_related("hit__batch").get(pk=assignment.pk)
        if assignment.state in Assignment.DONE_STATES and assignment.worker_id == worker.pk:
            return assignment, False
        refusal = assignment.can_submit(worker) or worker_refusal(assignment.hit.batch, worker)
        if refusal:
            raise CrowdError(refusal)
        task_type = get_task_type(assignment.hit.batch.task_type)
        try:
            answers = task_type.parse_answers(assignment.hit.ordered_items(), raw_answers, worker=worker)
        except AnswerError as error:
            raise CrowdError(str(error)) from None
        assignment.state = Assignment.State.SUBMITTED
        assignment.raw_answers = raw_answers
        assignment.answers = answers
        assignment.submitted = timezone.now()
        assignment.note_answers_seen(raw_answers, assignment.submitted)
        assignment.draft = None
        assignment.save(update_fields=["state", "raw_answers", "answers", "submitted", "draft", "answers_seen"])
        Batch.work_changed(assignment.hit.batch_id)
        task_type.on_submitted(assignment)
        assignment.hit.complete_if_done()
    if assignment.hit.batch.adaptive:
        batch_adapt(batch=assignment.hit.batch)  # after the submission is stored: a failure here loses nothing
    return assignment, True


DRAFT_LIMIT = 200_000  # characters of a saved draft: far more than any HIT's answers


def assignment_draft_save(*, assignment: Assignment, worker: Worker, fields: dict[str, Any]) -> Assignment:
    """Keep the answers given so far, so that a reload (or another device) finds them again."""
    refusal = assignment.can_submit(worker)
    if refusal:
        raise CrowdError(refusal)
    if len(repr(fields)) > DRAFT_LIMIT:
        raise CrowdError("these answers are too long to keep as a draft")
    assignment.draft = {str(key): str(value) for key, value in fields.items()}
    assignment.draft_saved = timezone.now()
    assignment.note_answers_seen(assignment.draft, assignment.draft_saved)
    assignment.save(update_fields=["draft", "draft_saved", "answers_seen"])
    return assignment


def assignment_return(*, assignment: Assignment, worker: Worker) -> Assignment:
    """Give a HIT back: the place is free for someone else at once, and the draft goes with it."""
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if assignment.worker_id != worker.pk:
            raise CrowdError("this HIT is held by another worker")
        if assignment.state != Assignment.State.CLAIMED:
            raise CrowdError(f"this HIT was {assignment.state} already; there is nothing to return")
        assignment.state, assignment.draft, assignment.returned = Assignment.State.EXPIRED, None, True
        assignment.save(update_fields=["state", "draft", "returned"])
        transaction.on_commit(lambda: selectors.open_hits_changed(assignment.hit.batch))
    return assignment


MAX_EXTENSIONS = 2


def assignment_extend(*, assignment: Assignment, worker: Worker) -> Assignment:
    """More time for a HIT the worker is still on: up to half its time limit (at most 30 minutes) more,
    twice at most, and only while the time has not run out."""
    refusal = assignment.can_submit(worker)
    if refusal:
        raise CrowdError(refusal)
    if assignment.hit.batch.provider != "inhouse":
        raise CrowdError("the time limit of this HIT is set by its provider")
    if assignment.extensions >= MAX_EXTENSIONS:
        raise CrowdError(f"this HIT has had more time {MAX_EXTENSIONS} times already; submit what you have or "
                         f"return it")
    more = timedelta(seconds=min(assignment.hit.batch.assignment_duration // 2, 1800))
    Assignment.objects.filter(pk=assignment.pk).update(deadline=F("deadline") + more,
                                                       extensions=F("extensions") + 1)
    assignment.refresh_from_db(fields=["deadline", "extensions"])
    return assignment


def worker_refusal(batch: Batch, worker: Worker) -> str | None:
    if worker.blocked:
        return "your account is blocked from this work" + (f": {worker.blocked_reason}" if worker.blocked_reason
                                                           else "")
    return extensions.refusal(batch, worker)


def author_refusal(hit: Hit, worker: Worker) -> str | None:
    """For work a provider let through: in-house and Prolific claims never reach an item the worker is
    excluded from (assignment_claim skips its HIT). Exclusions are set when a workflow makes the item, or
    when adaptive redundancy re-packs it (its voters)."""
    if HitItem.objects.filter(hit=hit, item__excluded_workers=worker).exists():
        return ("this HIT holds an item you may not work on again (you wrote it in an earlier stage, or already "
                "voted on it); someone else takes it")
    return None


def assignments_expire_overdue(*, now: datetime | None = None, worker: Worker | None = None,
                               hit: Hit | None = None) -> int:
    """Free the places of claims whose time ran out (one worker's, or one HIT's, or all); returns how many.

    The sweep over all of them is periodic (`sync_open_batches`); a request expires only what it reads, and
    reads before it writes, so a crowd's page views never queue behind one another's writes to every claim."""
    claims = Assignment.objects.overdue(now)
    if worker is not None:
        claims = claims.filter(worker=worker)
    if hit is not None:
        claims = claims.filter(hit=hit)
    overdue = dict(claims.values_list("pk", "hit__batch"))
    if not overdue:
        return 0
    expired = Assignment.objects.filter(pk__in=overdue, state=Assignment.State.CLAIMED).update(
        state=Assignment.State.EXPIRED)
    batches = list(Batch.objects.filter(pk__in=set(overdue.values())))
    transaction.on_commit(lambda: selectors.open_hits_changed(*batches))  # places came free
    return expired


def assignment_expire_if_overdue(*, assignment: Assignment) -> Assignment:
    """The assignment, expired first if it is a claim whose time ran out (no query when it is not)."""
    if assignment.state == Assignment.State.CLAIMED and assignment.deadline and assignment.deadline < timezone.now():
        if Assignment.objects.filter(pk=assignment.pk, state=Assignment.State.CLAIMED).update(
                state=Assignment.State.EXPIRED):
            assignment.state = Assignment.State.EXPIRED
            selectors.open_hits_changed(assignment.hit.batch)
        else:
            assignment.refresh_from_db()
    return assignment
