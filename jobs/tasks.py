from celery import shared_task

from jobs.services import job_run, jobs_reap_stale


# acks_late with reject_on_worker_lost: a worker killed mid-job gives the task back to
# the broker, and job_run takes the job over once its heartbeat has gone stale.
@shared_task(acks_late=True, reject_on_worker_lost=True)
def job_run_task(job_id: int) -> str | None:
    return job_run(job_id)


@shared_task
def reap_stale_jobs() -> int:
    """Beat: jobs whose process died are marked failed, so they can be started again."""
    return jobs_reap_stale()
