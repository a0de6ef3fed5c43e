"""Start long actions as jobs, run them, and read their progress from stored rows."""

from django.conf import settings
from django.db import transaction

from aggregation.services import batch_aggregate
from dashboard.models import Job
from datasets.models import DatasetVersion
from datasets.services import DatasetError, dataset_export
from filtering.models import Corpus, FilterChunk
from filtering.patterns import DEFAULT_PROFILE
from filtering.services import filter_run_prepare
from filtering.tasks import filter_run_queue
from hits import services as hit_services
from hits.models import Batch, Hit
from hits.services import CrowdError, ProviderError

# Errors that are the request's fault or the provider's answer: the job fails with the message.
EXPECTED = (CrowdError, ProviderError, DatasetError, LookupError, ValueError)


def job_start(*, kind, target, user):
    """Record the job and hand it to a worker once the row is committed."""
    from dashboard.tasks import job_run

    if kind not in Job.Kind.values:
        raise ValueError(f"unknown job kind {kind!r}; use one of {', '.join(Job.Kind.values)}")
    _target(kind, target)
    running = Job.objects.filter(kind=kind, target=target, state__in=[Job.State.QUEUED, Job.State.RUNNING]).first()
    if running:
        return running  # a second click while the first runs starts nothing new
    job = Job.objects.create(kind=kind, target=target, created_by=user if user and user.pk else None)
    transaction.on_commit(lambda: job_run.delay(job.pk))
    return job


def _target(kind, target):
    model = {Job.Kind.FILTER: Corpus, Job.Kind.EXPORT: DatasetVersion}.get(kind, Batch)
    try:
        return model.objects.get(pk=target)
    except model.DoesNotExist:
        raise ValueError(f"there is no {model._meta.verbose_name} {target} to {kind}") from None


def job_execute(job):
    """Do the job's work; returns (message, result)."""
    target = _target(job.kind, job.target)
    if job.kind == Job.Kind.FILTER:
        run = filter_run_prepare(profile=DEFAULT_PROFILE, corpus=target)
        chunks = filter_run_queue(run)  # one task per chunk: every worker takes a share
        return f"filter run {run.pk}: {len(chunks)} chunks handed to the workers", {"run": run.pk}
    if job.kind == Job.Kind.PUBLISH:
        batch = hit_services.batch_publish(batch=target)
        return f"batch {batch.pk} published: {batch.hits.count()} HITs", {}
    if job.kind == Job.Kind.SYNC:
        report = hit_services.batch_sync(batch=target)
        return (f"{report.new} new submissions, {report.updated} updated, {report.invalid} not usable, "
                f"{report.expired_claims} expired claims freed"), report.__dict__
    if job.kind == Job.Kind.AGGREGATE:
        run = batch_aggregate(batch=target)
        alpha = f"{run.alpha:.3f}" if run.alpha is not None else "n/a"
        return f"aggregation {run.pk}: {run.votes} votes, alpha {alpha}", {"run": run.pk}
    written = dataset_export(version=target, folder=settings.EXPORT_ROOT / target.name)
    return f"{len(written)} files written", {"files": written}


def progress(job):
    """(done, total) read from the rows the work writes, or None where the work is one step."""
    if job.kind == Job.Kind.FILTER and job.result.get("run"):
        chunks = FilterChunk.objects.filter(run_id=job.result["run"])
        return chunks.filter(done=True).count(), chunks.count()
    if job.kind == Job.Kind.PUBLISH:
        hits = Hit.objects.filter(batch_id=job.target)
        return hits.exclude(provider_hit_id="").count(), hits.count()
    return None

