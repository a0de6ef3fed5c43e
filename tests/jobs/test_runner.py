"""Jobs run outside the request, once; a dead one is reaped and can be started again; cancelling works."""

import threading
import time
from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from jobs.models import Job
from jobs.registry import JOB_KINDS, JobKind
from jobs.services import JobCancelled, job_cancel, job_check_cancelled, job_run, job_start, jobs_reap_stale

RELEASE = threading.Event()
STARTED = threading.Event()


def _gated(job, target):
    """Waits for the test to let it finish (or 5 s): had it run inside the request, the request would wait."""
    STARTED.set()
    released = RELEASE.wait(5)
    return ("released" if released else "ran out of patience"), {"released": released}


def _stepping(job, target):
    for _ in range(50):
        job_check_cancelled(job)
        time.sleep(0.05)
    return "all steps", {}


JOB_KINDS.register("test-gated", JobKind("test-gated", "wait for the test", "", _gated))
JOB_KINDS.register("test-stepping", JobKind("test-stepping", "step", "", _stepping, cancellable=True))


def _wait(job, states, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.state in states:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job.pk} still {job.state}")


@pytest.mark.django_db(transaction=True)
@override_settings(JOBS_RUNNER="thread", JOB_HEARTBEAT_SECONDS=1)
def test_on_the_embedded_defaults_a_job_runs_in_a_thread_and_the_page_returns_at_once():
    RELEASE.clear()
    STARTED.clear()
    job = job_start(kind="test-gated")
    assert STARTED.wait(5), "the job never started"
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING  # the caller got its answer while the work still runs
    RELEASE.set()
    job = _wait(job, {Job.State.DONE})
    assert (job.message, job.result) == ("released", {"released": True})
    assert job.heartbeat is not None and job.finished >= job.started


@pytest.mark.django_db(transaction=True)
@override_settings(JOBS_RUNNER="thread")
def test_a_running_cancellable_job_stops_at_its_next_step():
    job = job_start(kind="test-stepping")
    _wait(job, {Job.State.RUNNING})
    job_cancel(job=job)
    job = _wait(job, {Job.State.CANCELLED})
    assert job.message == "cancelled by an organizer"


@pytest.mark.django_db
def test_a_job_whose_process_died_is_reaped_and_can_run_again():
    job = Job.objects.create(kind="test-stepping", state=Job.State.RUNNING,
                             heartbeat=timezone.now() - timedelta(minutes=5), started=timezone.now())
    assert jobs_reap_stale() == 1
    job.refresh_from_db()
    assert job.state == Job.State.FAILED and "no heartbeat since" in job.message
    assert job_run(job.pk) is None  # a failed job is not run again by a late redelivery
    again = Job.objects.create(kind="test-stepping", state=Job.State.RUNNING,
                               heartbeat=timezone.now() - timedelta(minutes=5))
    assert job_run(again.pk) == "all steps"  # a redelivered task takes over a job whose worker died


@pytest.mark.django_db
def test_a_queued_job_is_cancelled_at_once_and_a_second_start_returns_the_live_one():
    with override_settings(JOBS_RUNNER="celery", CELERY_TASK_ALWAYS_EAGER=False):
        first = Job.objects.create(kind="test-stepping", target=7)
        assert job_start(kind="test-stepping", target=7).pk == first.pk
        cancelled = job_cancel(job=first)
    assert cancelled.state == Job.State.CANCELLED
    with pytest.raises(JobCancelled.__mro__[1], match="only a queued or running job can be cancelled"):
        job_cancel(job=cancelled)


@pytest.mark.django_db
def test_a_job_that_cannot_start_says_why():
    client = Client()
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("boss", is_staff=True))
    response = client.post("/dashboard/jobs/", {"kind": "publish", "target": "999"}, follow=True)
    assert "there is no batch 999 to publish" in response.content.decode()
