"""A job whose Celery worker is killed (SIGKILL, mid-ingest) is marked failed once its heartbeat stops, and
starting it again finishes the work without doubling any of it. A real worker process against PostgreSQL."""

import json
import signal
import time

import pytest
from django.test import override_settings

from filtering.models import Document
from jobs.models import Job
from jobs.services import job_start, jobs_reap_stale
from jobs.tasks import job_run_task
from projects.models import Upload
from projects.services import project_create
from tests.conftest import start_worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
QUEUE = "kill-test"
DOCUMENTS = 60_000


def _wait(check, seconds=60, what="the condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {seconds} s")


def test_a_killed_workers_job_is_marked_failed_and_runs_again_to_the_end(tmp_path):
    from config.celery import app

    app.conf.task_always_eager = False
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{n}", "domain": "finance", "text": f"Shares rose {n} points."}) + "\n"
                            for n in range(DOCUMENTS)))
    project = project_create(name="Killed")
    upload = Upload.objects.create(project=project, kind="corpus", name="many.jsonl", path=str(path), format="jsonl",
                                   size=path.stat().st_size)
    options = {"upload": upload.pk, "corpus": "killed", "domain": "", "records": DOCUMENTS}
    job = Job.objects.create(kind="project-ingest", target=project.pk, options=options)
    # A queue of its own: the session's worker must not take this job.
    worker, _ = start_worker("doomed", queue=QUEUE, JOB_HEARTBEAT_SECONDS="1")
    try:
        job_run_task.apply_async((job.pk,), queue=QUEUE)
        _wait(lambda: Job.objects.get(pk=job.pk).result.get("read", 0) >= 1000, what="the ingest getting going")
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    finally:
        if worker.poll() is None:
            worker.kill()
        app.conf.task_always_eager = True
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING  # nobody told it: the process just vanished
    with override_settings(JOB_LEASE_SECONDS=2):
        time.sleep(2.5)
        assert jobs_reap_stale() == 1
    # Counted only now: a COMMIT the worker sent just before it died still lands once PostgreSQL's
    # backend gets to it, a moment after the process is gone.
    stored = Document.objects.filter(corpus__name="killed").count()
    assert 0 < stored < DOCUMENTS
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert "the process running it stopped (no heartbeat since" in job.message and "start it again" in job.message

    # Started again (here it runs in this process, as Celery is eager outside the worker fixture).
    again = job_start(kind="project-ingest", target=project.pk, options=options)
    assert again.pk != job.pk
    again.refresh_from_db()
    assert again.state == Job.State.DONE, again.message
    assert Document.objects.filter(corpus__name="killed").count() == DOCUMENTS  # the rest, nothing twice
    assert again.result["documents"] == DOCUMENTS - stored
