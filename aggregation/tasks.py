from celery import shared_task
from django.db import OperationalError
from django.db.models import Max, OuterRef, Subquery

from aggregation.services import aggregated, batch_aggregate
from hits.models import Assignment, Batch


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def aggregate_batch(batch_id):
    run = batch_aggregate(batch=Batch.objects.get(pk=batch_id))
    return {"run": run.pk, "alpha": run.alpha}


@shared_task
def aggregate_completed_batches():
    """Beat: aggregate every completed batch of yes/no votes whose newest submission is newer than its last
    aggregation."""
    newest_submission = Assignment.objects.filter(hit__batch=OuterRef("pk")).values("hit__batch").annotate(
        last=Max("submitted")).values("last")
    newest_run = Batch.objects.filter(pk=OuterRef("pk")).annotate(last=Max("aggregations__created")).values("last")
    batches = Batch.objects.filter(state=Batch.State.COMPLETED, task_type="design").annotate(
        submitted_at=Subquery(newest_submission), aggregated_at=Subquery(newest_run))
    for batch in batches:
        if not aggregated(batch):
            continue
        if batch.aggregated_at is None or (batch.submitted_at and batch.submitted_at > batch.aggregated_at):
            aggregate_batch.delay(batch.pk)
