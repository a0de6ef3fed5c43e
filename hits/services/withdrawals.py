"""Withdrawn work: submitted, then taken back by the worker (a Prolific participant who returns a submission while
it awaits review: "return and cancel reward"). The provider pays nothing for it and the data must not be used, so
its answers leave every count, label and export, its place frees for someone else, and an intended reward is
cancelled; the answers are kept only in its `Withdrawal`, with when and why."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from hits import selectors
from hits.models import Assignment, Batch, Withdrawal
from hits.services.payments import reward_cancel
from hits.task_types import get_task_type


def assignment_withdraw(*, assignment: Assignment, why: str) -> Assignment:
    """Withdraw submitted work, once; work reviewed already (approved, rejected) stays as it is and is returned
    unchanged, for the caller to report."""
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().select_related("hit__batch").get(pk=assignment.pk)
        if assignment.state != Assignment.State.SUBMITTED:
            return assignment
        Withdrawal.objects.create(assignment=assignment, reason=why, answers=assignment.answers,
                                  raw_answers=assignment.raw_answers)
        # What the task stored besides the answers (a span review's answers, a later stage's items) goes first,
        # while the answers it was made from are still on the row.
        get_task_type(assignment.hit.batch.task_type).on_withdrawn(assignment)
        assignment.state, assignment.answers, assignment.raw_answers = Assignment.State.WITHDRAWN, None, None
        assignment.reviewed = timezone.now()
        assignment.save(update_fields=["state", "answers", "raw_answers", "reviewed"])
        Batch.work_changed(assignment.hit.batch_id)
        reward_cancel(assignment, why=f"withdrawn: {why}")
        if assignment.hit.reopen_if_room():
            batch = assignment.hit.batch
            transaction.on_commit(lambda: selectors.open_hits_changed(batch))
    return assignment


def withdrawn_note(assignment: Assignment, verb: str) -> str:
    """Why withdrawn work cannot be approved or rejected, for the organizer."""
    found = Withdrawal.objects.filter(assignment=assignment).first()
    when = f" on {timezone.localtime(found.when):%Y-%m-%d at %H:%M}" if found else ""
    why = f" ({found.reason})" if found else ""
    return (f"assignment {assignment.pk} was withdrawn by its worker{when}{why}: the provider pays nothing for it and "
            f"its answers are not used, so it cannot be {verb}; it is kept for the record on the batch page")
