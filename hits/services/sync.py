"""What a provider holds, pulled: submissions (MTurk), statuses of places taken on this site (Prolific),
HITs final at the provider."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from hits import selectors
from hits.models import Assignment, Batch, Hit, Worker
from hits.providers import get_provider
from hits.providers.base import RemoteHit, Submission
from hits.services.adaptive import batch_adapt
from hits.services.claims import assignment_claim, assignments_expire_overdue, author_refusal, worker_refusal
from hits.services.errors import CrowdError
from hits.services.payments import reward_cancel, reward_record
from hits.services.withdrawals import assignment_withdraw
from hits.task_types import AnswerError, TaskType, get_task_type

# --- sync from providers that hold the submissions --------------------------------

@dataclass
class SyncReport:
    new: int = 0
    updated: int = 0
    invalid: int = 0
    flagged: int = 0
    expired_claims: int = 0
    hits: int = 0
    disposed: int = 0
    left: int = 0  # HITs not reached before the time ran out; the next sync goes on from them
    unmatched: int = 0  # places submitted at the provider with no work stored here
    skipped: str = ""  # why the sync did nothing (another one holds the batch)
    withdrawn: int = 0  # submitted work its worker took back at the provider
    held: int = 0  # places taken at the provider by participants who have not arrived here yet, held for them
    places: str = ""  # places taken here and at the provider, when it counts them
    places_differ: bool = False


_STATE = {"submitted": Assignment.State.SUBMITTED, "approved": Assignment.State.APPROVED,
          "rejected": Assignment.State.REJECTED}


def batch_sync(*, batch: Batch, seconds: float | None = None) -> SyncReport:
    """Pull what the provider holds, until every HIT of the batch is final.

    One sync of a batch at a time (a lease on the batch row); HITs are taken
    least recently synced first and the sync stops after `seconds`, so a big
    batch spreads over several runs. A HIT is final when it is closed at the
    provider (expired, or every place submitted), nobody holds a place in it,
    and all its work is reviewed; it is then disposed of there and no longer
    asked about. A submission that cannot be read is stored raw and flagged,
    and the rest of the batch syncs.
    """
    report = SyncReport(expired_claims=assignments_expire_overdue())
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SYNC_LEASE_SECONDS)
    if not Batch.objects.filter(pk=batch.pk).filter(Q(sync_lease=None) | Q(sync_lease__lt=stale)).update(
            sync_lease=now):
        report.skipped = f"another sync of batch {batch.pk} is running"
        return report
    try:
        provider = get_provider(batch.provider)
        if provider.pulls_submissions:
            _sync_remote(batch, provider, report, seconds or settings.SYNC_SECONDS)
        if provider.lists_assignments:
            _sync_places(batch, provider, report)
        for hit in batch.hits.exclude(state=Hit.State.COMPLETED).select_related("batch"):
            hit.complete_if_done()
        if batch.adaptive:
            batch_adapt(batch=batch)  # every sync, not only one with news: a claim that expired frees a need
        _finish_if_final(batch, provider)
    finally:
        Batch.objects.filter(pk=batch.pk, sync_lease=now).update(sync_lease=None)
    return report


def _sync_remote(batch: Batch, provider: Any, report: SyncReport, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    task_type = get_task_type(batch.task_type)
    hits = list(batch.hits.exclude(provider_hit_id="").filter(final=False).select_related("batch")
                .order_by(F("synced").asc(nulls_first=True), "index"))
    for position, hit in enumerate(hits):
        if time.monotonic() > deadline:
            report.left = len(hits) - position
            return
        for submission in provider.fetch_submissions(hit):
            submission_store(batch, hit, submission, task_type, report)
        hit.complete_if_done()
        remote = provider.hit_state(hit)
        report.hits += 1
        if remote is not None and _hit_final(hit, remote):
            if remote.status != "disposed":
                provider.dispose_hit(hit)
                report.disposed += 1
            Hit.objects.filter(pk=hit.pk).update(final=True)
        Hit.objects.filter(pk=hit.pk).update(synced=timezone.now())


def _sync_places(batch: Batch, provider: Any, report: SyncReport) -> None:
    """Statuses from a provider whose work arrives on this site's pages but which holds the places (Prolific):
    each submission's status there decides its assignment's here, so that the places taken here are the places
    taken there. A place taken there by someone who has not opened this site's link yet is held for them here
    too; a place given back there (returned, timed out, screened out, rejected) is free here for the next
    participant; work returned after it was submitted is withdrawn; a review made there is recorded, with the
    reward in the ledger."""
    local = {a.provider_assignment_id: a for a in Assignment.objects.filter(hit__batch=batch)
             .exclude(provider_assignment_id="").select_related("hit__batch", "worker")}
    freed: set[int] = set()
    for remote in provider.remote_assignments(batch):
        assignment = local.get(remote.provider_assignment_id)
        if assignment is None:
            if remote.status == "claimed" and batch.state == Batch.State.PUBLISHED:
                report.held += _hold_for(batch, remote)
            elif remote.status == "submitted":
                report.unmatched += 1  # finished at the provider with no work stored here: reconcile names it
            continue
        if place_follow(assignment, remote, report):
            freed.add(assignment.hit_id)
    for hit in Hit.objects.filter(pk__in=freed).select_related("batch"):
        hit.reopen_if_room()
    if freed:
        transaction.on_commit(lambda: selectors.open_hits_changed(batch))
    taken = provider.places_taken(batch)
    if taken is not None:
        here = Assignment.objects.filter(hit__batch=batch).live().count()
        report.places = f"{here} here, {taken} at {provider.name}"
        if here != taken:
            report.places_differ = True


ENDED = {"returned": "returned", "timed-out": "timed out", "screened-out": "screened out"}


def place_follow(assignment: Assignment, remote: Any, report: SyncReport | None = None) -> bool:
    """Give the provider's status of a place to its assignment here; True when the place came free here."""
    report = report or SyncReport()
    state, status = assignment.state, remote.status
    rows = Assignment.objects.filter(pk=assignment.pk, state=state)
    if status in ENDED:
        if state == Assignment.State.CLAIMED:
            rows.update(state=Assignment.State.EXPIRED, ended=ENDED[status], returned=status == "returned",
                        draft=None)
            report.expired_claims += 1
            return True
        if state == Assignment.State.SUBMITTED and status == "returned":
            assignment_withdraw(assignment=assignment,
                                why=f"returned at {assignment.hit.batch.provider} after submitting")
            report.withdrawn += 1
            return True
        if state in Assignment.DONE_STATES and not assignment.place_freed:
            # Timed out there after the work was stored here (the participant never went back with the code): the
            # work stays for a person to judge, and the place is the provider's to give again.
            rows.update(place_freed=True, ended=ENDED[status], flag=assignment.flag or (
                f"{ENDED[status]} at {assignment.hit.batch.provider} after the work was submitted here; look at it "
                f"before approving"))
            report.flagged += 1
            return True
        if state == Assignment.State.EXPIRED and not assignment.ended:
            rows.update(ended=ENDED[status])
        return False
    if status == "approved" and state == Assignment.State.SUBMITTED:
        with transaction.atomic():
            rows.update(state=Assignment.State.APPROVED, reviewed=timezone.now())
            reward_record(assignment, confirmed=True)
        report.updated += 1
    elif (status == "rejected" and state in (Assignment.State.SUBMITTED, Assignment.State.REJECTED)
          and not assignment.place_freed):
        # The provider opens a new place for a rejected submission: the work stays, its place is free.
        if rows.update(state=Assignment.State.REJECTED, place_freed=True,
                       reviewed=assignment.reviewed or timezone.now()) and state == Assignment.State.SUBMITTED:
            Batch.work_changed(assignment.hit.batch_id)
        reward_cancel(assignment, why="rejected at the provider")
        report.updated += state == Assignment.State.SUBMITTED
        return True
    return False


def _hold_for(batch: Batch, remote: Any) -> int:
    """Hold a place here for a participant who took one at the provider and has not opened this site's link yet,
    bound to their submission (the provider said so in the study's list): when they arrive, it is theirs."""
    worker, _ = Worker.objects.get_or_create(provider=batch.provider, external_id=remote.worker_id)
    try:
        assignment = assignment_claim(batch=batch, worker=worker)
    except CrowdError:
        return 0  # refused here as they will be when they arrive, with the reason
    if assignment is None:
        return 0
    try:
        with transaction.atomic():
            Assignment.objects.filter(pk=assignment.pk, provider_assignment_id="").update(
                provider_assignment_id=remote.provider_assignment_id,
                deadline=claim_deadline(batch, remote.started, assignment.deadline))
    except IntegrityError:
        return 0  # their own request bound it a moment ago
    return 1


def claim_deadline(batch: Batch, started: Any, deadline: Any) -> Any:
    """A claim of a provider's place lasts as long as the place there (the study's maximum allowed time from when
    it was taken), so the place is held here while it is held there."""
    provider = get_provider(batch.provider)
    if started is None or not hasattr(provider, "max_minutes"):
        return deadline
    return max(deadline, started + timedelta(minutes=provider.max_minutes(batch), seconds=60))


def _hit_final(hit: Hit, remote: RemoteHit) -> bool:
    """Closed at the provider, nobody holding a place, and every submission reviewed."""
    if remote.status == "disposed":
        return True
    if remote.status != "review" or remote.pending:
        return False
    return not hit.assignments.filter(state=Assignment.State.SUBMITTED).exists()


def _finish_if_final(batch: Batch, provider: Any) -> None:
    batch.refresh_from_db(fields=["state", "final"])
    if batch.final or batch.state not in Batch.SYNCING_STATES:
        return
    if provider.pulls_submissions:
        final = not batch.hits.exclude(provider_hit_id="").filter(final=False).exists()
        final = final and batch.state != Batch.State.PUBLISHING
    else:
        final = batch.state != Batch.State.PUBLISHED and batch.state != Batch.State.PUBLISHING and not (
            Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).exists())
    if final:
        Batch.objects.filter(pk=batch.pk).update(final=True)


def submission_store(batch: Batch, hit: Hit, submission: Submission, task_type: TaskType,
                      report: SyncReport) -> None:
    existing = Assignment.objects.filter(provider_assignment_id=submission.provider_assignment_id).first()
    state = _STATE[submission.status]
    if existing:
        if existing.state != state and existing.state == Assignment.State.SUBMITTED:
            # Reviewed at the provider (MTurk approves by itself after its delay): the provider paid.
            existing.state = state
            existing.reviewed = timezone.now()
            existing.save(update_fields=["state", "reviewed"])
            Batch.work_changed(batch.pk)
            if state == Assignment.State.APPROVED:
                reward_record(existing, confirmed=True)
            report.updated += 1
        return
    worker, _ = Worker.objects.get_or_create(provider=batch.provider, external_id=submission.worker_id)
    raw = {key: value for key, value in submission.raw_answers.items() if key != "assignmentId"}
    answers, feedback, flag = None, "", ""
    if submission.unreadable:
        raw = {"_unreadable": submission.unreadable}
        flag = "the answers could not be read; look at them before approving"
        report.flagged += 1
    else:
        try:
            answers = task_type.parse_answers(hit.ordered_items(), raw)
        except AnswerError as error:
            report.invalid += 1
            feedback = f"not usable: {error}"
    refusal = worker_refusal(batch, worker) or author_refusal(hit, worker)
    if refusal and not flag:
        # Work the provider let through from someone we would refuse (a revoked qualification, a block):
        # kept, and left for a person, never approved in bulk.
        flag = f"submitted by a worker we refuse: {refusal}"
        report.flagged += 1
    try:
        with transaction.atomic():
            assignment = Assignment.objects.create(
                hit=hit, worker=worker, provider_assignment_id=submission.provider_assignment_id, state=state,
                claimed=submission.submitted, submitted=submission.submitted, raw_answers=raw, answers=answers,
                feedback=feedback, flag=flag)
            if answers is not None and not flag:
                task_type.on_submitted(assignment)
            Batch.work_changed(batch.pk)
            if state == Assignment.State.APPROVED:
                reward_record(assignment, confirmed=True)
    except IntegrityError:
        return  # stored by a sync running beside this one
    if answers is not None and not flag:
        report.new += 1
