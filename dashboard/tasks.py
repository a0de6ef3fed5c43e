import logging

from celery import shared_task
from django.utils import timezone

from dashboard.jobs import EXPECTED, job_execute
from dashboard.models import Job

log = logging.getLogger(__name__)


@shared_task
def job_run(job_id):
    """Run a job once: a job that is not queued any more (a redelivery) is left alone."""
    claimed = Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(state=Job.State.RUNNING,
                                                                           started=timezone.now())
    if not claimed:
        return None
    job = Job.objects.get(pk=job_id)
    try:
        message, result = job_execute(job)
    except EXPECTED as error:
        Job.objects.filter(pk=job_id).update(state=Job.State.FAILED, message=str(error), finished=timezone.now())
        return None
    except Exception as error:
        log.exception("job %s failed", job_id)
        Job.objects.filter(pk=job_id).update(state=Job.State.FAILED, finished=timezone.now(),
                                             message=f"unexpected error ({type(error).__name__}): {error}; "
                                                     f"see the worker's log")
        raise
    Job.objects.filter(pk=job_id).update(state=Job.State.DONE, message=message, result=result,
                                         finished=timezone.now())
    return message
