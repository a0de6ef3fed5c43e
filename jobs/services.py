"""Start jobs, run them once, watch their heartbeat, cancel them, read their progress."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import IntegrityError, OperationalError, close_old_connections, connection, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import CrowdsetError, InputError
from jobs.models import Job
from jobs.registry import JOB_KINDS, JobKind

log = logging.getLogger(__name__)
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


class JobError(InputError):
    """A job that cannot be started: unknown kind, missing target."""


class JobCancelled(CrowdsetError):
    """Raised by a cancellable job's work when the organizer cancelled it."""


class JobFailed(CrowdsetError):
    """The work refused its input as a whole; `result` keeps what the organizer needs to fix it (the
    refused records with their reasons), shown with the failed job."""

    def __init__(self, message: str, *, result: dict[str, Any]):
        super().__init__(message)
        self.result = result


def job_start(*, kind: str, target: int | None = None, options: dict[str, Any] | None = None,
              user: Any = None) -> Job:
    """Record the job and hand it to a runner once the row is committed.

    A second start of the same kind and target while one is queued or running
    returns that one and starts nothing new.
    """
    try:
        job_kind = JOB_KINDS.get(kind)
    except LookupError as error:
        raise JobError(str(error)) from None
    job_target(job_kind, target)
    jobs_reap_stale()
    live = Job.objects.filter(kind=kind, target=target, state__in=Job.LIVE_STATES).first()
    if live and target is not None:
        return live
    try:
        with transaction.atomic():
            job = Job.objects.create(kind=kind, target=target, options=options or {},
                                     created_by=user if user is not None and user.pk else None)
    except IntegrityError:  # the same start, a moment earlier, from another request
        return Job.objects.get(kind=kind, target=target, state__in=Job.LIVE_STATES)
    transaction.on_commit(lambda: _dispatch(job.pk))
    return job


def job_target(job_kind: JobKind, target: int | None) -> Any:
    model = job_kind.target_model()
    if model is None:
        return None
    if target is None:
        raise JobError(f"{job_kind.label}: say which {model._meta.verbose_name}")
    try:
        return model._default_manager.get(pk=target)
    except ObjectDoesNotExist:
        raise JobError(f"there is no {model._meta.verbose_name} {target} to {job_kind.label}") from None


def _dispatch(job_id: int) -> None:
    """Celery when a broker is configured (eager in tests); otherwise a thread of this process,
    so a page that starts a job returns at once on the embedded defaults too."""
    if settings.JOBS_RUNNER == "thread":
        _thread_pool().submit(_run_in_thread, job_id)
        return
    job_run_task.delay(job_id)


def _thread_pool() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.JOBS_THREADS, thread_name_prefix="crowdset-job")
        return _executor


def _run_in_thread(job_id: int) -> None:
    try:
        job_run(job_id)
    except Exception:
        log.exception("job %s failed", job_id)
    finally:
        connection.close()


def job_run(job_id: int) -> str | None:
    """Run a job once. A job that is not queued (done, or taken by another runner) is left alone;
    a running job whose heartbeat stopped is taken over (its worker died and the task came back)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.JOB_LEASE_SECONDS)
    claimed = (Job.objects.filter(pk=job_id)
               .filter(Q(state=Job.State.QUEUED) | Q(state=Job.State.RUNNING, heartbeat__lt=stale))
               .update(state=Job.State.RUNNING, started=now, heartbeat=now))
    if not claimed:
        return None
    job = Job.objects.get(pk=job_id)
    state, message, result = Job.State.DONE, "", dict[str, Any]()
    with _heartbeat(job_id):
        try:
            job_kind = JOB_KINDS.get(job.kind)
            message, returned = job_kind.run(job, job_target(job_kind, job.target))
            result = {**job.result, **returned}
        except JobCancelled as error:
            state, message = Job.State.CANCELLED, str(error) or "cancelled"
        except JobFailed as error:
            state, message, result = Job.State.FAILED, str(error), {**job.result, **error.result}
        except CrowdsetError as error:
            state, message = Job.State.FAILED, str(error)
        except Exception as error:
            log.exception("job %s failed", job_id)
            state, message = Job.State.FAILED, (f"unexpected error ({type(error).__name__}): {error}; "
                                                f"the log of the process that ran it has the details")
    Job.objects.filter(pk=job_id, state=Job.State.RUNNING).update(
        state=state, message=message, result=result, finished=timezone.now())
    return message


# The Celery tasks sit beside what they run (jobs.tasks names them for Celery's autodiscovery), under the names
# they always had, so messages queued before an upgrade still find them.
# acks_late with reject_on_worker_lost: a worker killed mid-job gives the task back to
# the broker, and job_run takes the job over once its heartbeat has gone stale.
@shared_task(name="jobs.tasks.job_run_task", acks_late=True, reject_on_worker_lost=True)
def job_run_task(job_id: int) -> str | None:
    return job_run(job_id)


@shared_task(name="jobs.tasks.reap_stale_jobs")
def reap_stale_jobs() -> int:
    """Beat: jobs whose process died are marked failed, so they can be started again."""
    return jobs_reap_stale()


# Progress a running job recorded (job_record), written by its heartbeat's thread: a job that streams a large read
# must not write on the connection that reads (on SQLite, a write on a connection whose read began before another
# connection's write is refused as "database is locked"). job id -> the fields not written yet.
_pending: dict[int, dict[str, Any]] = {}
_pending_lock = threading.Lock()
PROGRESS_SECONDS = 1.0


@contextmanager
def _heartbeat(job_id: int) -> Iterator[None]:
    """Beat every JOB_HEARTBEAT_SECONDS while the work runs, from a thread of its own, which also writes the
    progress the work records (every PROGRESS_SECONDS)."""
    stop = threading.Event()
    with _pending_lock:
        _pending[job_id] = {}

    def flush() -> None:
        with _pending_lock:
            fields, _pending[job_id] = _pending.get(job_id, {}), {}
        if fields:
            result = Job.objects.filter(pk=job_id).values_list("result", flat=True).first() or {}
            Job.objects.filter(pk=job_id).update(result={**result, **fields})

    def beat() -> None:
        last = time.monotonic()
        try:
            while not stop.wait(min(PROGRESS_SECONDS, settings.JOB_HEARTBEAT_SECONDS)):
                try:
                    flush()
                    if time.monotonic() - last >= settings.JOB_HEARTBEAT_SECONDS:
                        Job.objects.filter(pk=job_id, state=Job.State.RUNNING).update(heartbeat=timezone.now())
                        last = time.monotonic()
                except OperationalError:  # SQLite busy with the job's own writes: the next beat will do
                    close_old_connections()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        with _pending_lock:
            _pending.pop(job_id, None)


def jobs_reap_stale(*, now: datetime | None = None) -> int:
    """Mark failed the running jobs whose heartbeat stopped and the queued jobs no runner took."""
    now = now or timezone.now()
    reaped = 0
    lease = now - timedelta(seconds=settings.JOB_LEASE_SECONDS)
    for job in Job.objects.filter(state=Job.State.RUNNING, heartbeat__lt=lease):
        reaped += Job.objects.filter(pk=job.pk, state=Job.State.RUNNING, heartbeat__lt=lease).update(
            state=Job.State.FAILED, finished=now,
            message=f"the process running it stopped (no heartbeat since {job.heartbeat:%Y-%m-%d %H:%M:%S} UTC); "
                    f"start it again")
    waited = now - timedelta(seconds=settings.JOB_QUEUE_TIMEOUT_SECONDS)
    reaped += Job.objects.filter(state=Job.State.QUEUED, created__lt=waited).update(
        state=Job.State.FAILED, finished=now,
        message="no worker took it in time; check that a Celery worker is running, then start it again")
    return reaped


def job_cancel(*, job: Job) -> Job:
    """Cancel a queued job at once; ask a running one to stop at its next step (cancellable kinds only)."""
    if not job.is_live:
        raise JobError(f"job {job.pk} is {job.state}; only a queued or running job can be cancelled")
    if job.state == Job.State.RUNNING and not JOB_KINDS.get(job.kind).cancellable:
        raise JobError(f"job {job.pk} ({JOB_KINDS.get(job.kind).label}) cannot be stopped halfway; let it finish")
    Job.objects.filter(pk=job.pk, state=Job.State.QUEUED).update(
        state=Job.State.CANCELLED, finished=timezone.now(), message="cancelled before it started")
    Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()
    return job


def job_record(job: Job, **fields: Any) -> None:
    """Record how far the work has got in the job's result while it runs, for its progress: written within
    PROGRESS_SECONDS by the job's heartbeat thread (see _pending), or at once when the job runs without one."""
    job.result = {**job.result, **fields}
    with _pending_lock:
        if job.pk in _pending:
            _pending[job.pk].update(fields)
            return
    Job.objects.filter(pk=job.pk).update(result=job.result)


def job_check_cancelled(job: Job) -> None:
    """Called by cancellable work between steps."""
    if Job.objects.filter(pk=job.pk, cancel_requested=True).exists():
        raise JobCancelled("cancelled by an organizer")


def job_progress(job: Job) -> tuple[int, int] | None:
    if job.kind not in JOB_KINDS:
        return None
    progress = JOB_KINDS.get(job.kind).progress
    return progress(job) if progress else None
