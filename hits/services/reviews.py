"""Reviews: submitted work approved (its reward paid) or rejected, at the provider and here."""

from __future__ import annotations

from django.utils import timezone

from hits.models import Assignment, Batch
from hits.providers import get_provider
from hits.providers.base import NotReviewable
from hits.services.errors import CrowdError
from hits.services.payments import reward_cancel, reward_record
from hits.services.withdrawals import assignment_withdraw, withdrawn_note


def assignment_approve(*, assignment: Assignment, feedback: str = "") -> Assignment:
    return _review(assignment, Assignment.State.APPROVED, feedback)


def assignment_reject(*, assignment: Assignment, feedback: str, category: str = "") -> Assignment:
    """Reject submitted work with feedback the worker reads (Prolific also needs a category, and 100
    characters of feedback: the provider says so before anything is sent)."""
    if not feedback.strip():
        raise CrowdError("a rejection needs feedback telling the worker why")
    return _review(assignment, Assignment.State.REJECTED, feedback, category)


def _review(assignment: Assignment, state: str, feedback: str, category: str = "") -> Assignment:
    """Approve or reject submitted work at the provider, then here; doing it twice is a no-op.

    Approving writes the reward (and the provider's fee) to the ledger first and confirms it once the
    provider has approved. Work the provider approved by itself in the meantime is recorded as approved
    (it was paid), and the caller is told so through `assignment.review_note`.
    """
    assignment.review_note = ""
    if assignment.state == state:
        return assignment
    verb = "approved" if state == Assignment.State.APPROVED else "rejected"
    if assignment.state == Assignment.State.WITHDRAWN:
        raise CrowdError(withdrawn_note(assignment, verb))
    if assignment.state != Assignment.State.SUBMITTED:
        raise CrowdError(f"assignment {assignment.pk} is {assignment.state}; only submitted work can be {verb}")
    provider = get_provider(assignment.hit.batch.provider)
    if state == Assignment.State.APPROVED:
        reward_record(assignment, confirmed=False)
    try:
        if state == Assignment.State.APPROVED:
            provider.approve(assignment, feedback)
        else:
            provider.reject(assignment, feedback, category)
    except NotReviewable as error:
        if error.status == "returned":
            # Given back at the provider after it was submitted (a Prolific participant's "return and cancel
            # reward"): the work is withdrawn here too, and its reward cancelled.
            assignment_withdraw(assignment=assignment, why=f"returned at {provider.name} after submitting")
            assignment.refresh_from_db()
            raise CrowdError(withdrawn_note(assignment, verb)) from None
        if error.status not in (Assignment.State.APPROVED, Assignment.State.REJECTED):
            raise
        assignment.state, assignment.reviewed = error.status, timezone.now()
        assignment.save(update_fields=["state", "reviewed"])
        Batch.work_changed(assignment.hit.batch_id)
        if error.status == Assignment.State.APPROVED:
            reward_record(assignment, confirmed=True)
        else:
            reward_cancel(assignment)
        if error.status != state:
            raise CrowdError(f"assignment {assignment.pk} was already {error.status} at {provider.name} (for "
                             f"instance automatically, after the approval delay); it cannot be {state} now") from None
        assignment.review_note = f"already {error.status} at {provider.name}"
        return assignment
    assignment.state = state
    assignment.feedback = feedback
    assignment.reviewed = timezone.now()
    assignment.save(update_fields=["state", "feedback", "reviewed"])
    Batch.work_changed(assignment.hit.batch_id)
    if state == Assignment.State.APPROVED:
        reward_record(assignment, confirmed=True)
    return assignment
