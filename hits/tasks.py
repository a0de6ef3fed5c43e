"""Celery tasks of crowd work: each takes ids, loads rows and calls one service."""

import logging

from celery import shared_task
from django.db import OperationalError, transaction

from core.errors import CrowdsetError
from hits import services
from hits.models import Assignment, Batch, Payment, Worker
from hits.providers import get_provider
from hits.reconcile import batch_reconcile

# Connection losses to the database clear up by themselves; provider refusals
# (budget, bad state) and RequestErrors do not and are not retried. Throttling
# and 5xx from MTurk are retried inside boto3.
RETRYABLE = (OperationalError,)
log = logging.getLogger(__name__)


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def batch_publish(batch_id):
    batch = services.batch_publish(batch=Batch.objects.get(pk=batch_id))
    return {"batch": batch.pk, "state": batch.state}


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def batch_sync(batch_id):
    report = services.batch_sync(batch=Batch.objects.get(pk=batch_id))
    return report.__dict__


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def batch_expire(batch_id):
    return services.batch_expire(batch=Batch.objects.get(pk=batch_id)).state


@shared_task
def sync_open_batches():
    """Beat: sync every batch the provider may still change (a task each), and free expired claims."""
    services.assignments_expire_overdue()
    for batch_id in Batch.objects.filter(state__in=Batch.SYNCING_STATES, final=False).values_list("pk", flat=True):
        batch_sync.delay(batch_id)


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def batch_cancel(batch_id):
    return services.batch_cancel(batch=Batch.objects.get(pk=batch_id)).state


@shared_task
def reconcile_open_batches():
    """Beat: reconcile every batch that is not final yet; the differences are kept on the batch."""
    for batch_id in (Batch.objects.exclude(state=Batch.State.DRAFT).filter(final=False)
                     .values_list("pk", flat=True)):
        batch_reconcile_task.delay(batch_id)


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def batch_reconcile_task(batch_id):
    report = batch_reconcile(batch=Batch.objects.get(pk=batch_id))
    return {"differences": len(report.differences)}


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def assignment_review(assignment_id, approve, feedback=""):
    assignment = Assignment.objects.select_related("hit__batch").get(pk=assignment_id)
    if approve:
        return services.assignment_approve(assignment=assignment, feedback=feedback).state
    return services.assignment_reject(assignment=assignment, feedback=feedback).state


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def worker_block(worker_id, reason):
    return services.worker_block(worker=Worker.objects.get(pk=worker_id), reason=reason).blocked


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def worker_bonus(assignment_id, amount, reason):
    assignment = Assignment.objects.select_related("worker", "hit__batch").get(pk=assignment_id)
    return str(services.worker_bonus(worker=assignment.worker, assignment=assignment, amount=amount,
                                     reason=reason).amount)


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def bonus_send(payment_id):
    """Pay a bonus claimed in the ledger (by the API or the batch page); never twice (services.bonus_send)."""
    return services.bonus_send(payment=Payment.objects.get(pk=payment_id)).state


def bonus_request(*, assignment, amount, reason):
    """Claim a bonus (within the budgets: refused with the amounts named, nothing written) and hand the payment
    to a worker once the claim is committed. On the embedded defaults the worker runs it at once; its outcome,
    a provider's refusal included, is kept on the payment row, which is returned as it then is."""
    payment = services.bonus_claim(worker=assignment.worker, assignment=assignment, amount=amount, reason=reason)
    if payment.state == Payment.State.INTENDED:
        try:
            transaction.on_commit(lambda: bonus_send.delay(payment.pk))
        except CrowdsetError as error:
            log.warning("bonus %s: %s", payment.pk, error)  # kept on the row as its error
        payment.refresh_from_db()
    return payment


@shared_task(autoretry_for=RETRYABLE, retry_backoff=True, max_retries=5)
def prolific_event(event_type, resource_id):
    """A Prolific webhook: sync the batch whose study it concerns. A study event names the study; a
    submission event names only the submission, whose study is ours to find (here, or by asking Prolific)."""
    if event_type.startswith("study."):
        study = resource_id
    else:
        held = Assignment.objects.filter(hit__batch__provider="prolific", provider_assignment_id=resource_id)
        study = held.values_list("hit__batch__provider_state__study_id", flat=True).first()
        if study is None:
            found = get_provider("prolific").submission(resource_id)
            study = (found or {}).get("study_id")
    batch = Batch.objects.filter(provider="prolific", provider_state__study_id=study).first() if study else None
    if batch is None:
        return None  # not one of our batches' studies (a screening study, or another tool's)
    return services.batch_sync(batch=batch).__dict__
