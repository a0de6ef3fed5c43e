"""The hits app's job kinds."""

from hits import services
from hits.models import Assignment, Hit
from jobs.registry import JOB_KINDS, JobKind
from jobs.services import job_check_cancelled


def run_publish(job, batch):
    batch = services.batch_publish(batch=batch)
    return f"batch {batch.pk} published: {batch.hits.count()} HITs", {}


def publish_progress(job):
    hits = Hit.objects.filter(batch_id=job.target)
    return hits.exclude(provider_hit_id="").count(), hits.count()


def run_sync(job, batch):
    report = services.batch_sync(batch=batch)
    return (f"{report.new} new submissions, {report.updated} updated, {report.invalid} not usable, "
            f"{report.expired_claims} expired claims freed"), report.__dict__


def run_review(job, batch):
    """Approve or reject the listed submitted assignments of `batch`, one provider call each."""
    approve, feedback = bool(job.options.get("approve")), job.options.get("feedback", "")
    assignments = Assignment.objects.filter(hit__batch=batch, pk__in=job.options.get("assignments", []),
                                            state=Assignment.State.SUBMITTED).select_related("hit__batch", "worker")
    done = 0
    for assignment in assignments.order_by("pk"):
        job_check_cancelled(job)
        if approve:
            services.assignment_approve(assignment=assignment, feedback=feedback)
        else:
            services.assignment_reject(assignment=assignment, feedback=feedback,
                                       category=job.options.get("category", ""))
        done += 1
    verb = "approved" if approve else "rejected"
    return f"{done} assignments {verb}", {"reviewed": done}


def review_progress(job):
    ids = job.options.get("assignments", [])
    reviewed = Assignment.objects.filter(pk__in=ids).exclude(state=Assignment.State.SUBMITTED).count()
    return reviewed, len(ids)


JOB_KINDS.register("review", JobKind("review", "review the work of", "hits.Batch", run_review, review_progress,
                                     cancellable=True))
JOB_KINDS.register("publish", JobKind("publish", "publish", "hits.Batch", run_publish, publish_progress))
JOB_KINDS.register("sync", JobKind("sync", "sync", "hits.Batch", run_sync))
