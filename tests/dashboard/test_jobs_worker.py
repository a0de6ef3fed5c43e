"""A job started from the dashboard runs in a real Celery worker, and the page reads its progress from rows."""

import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from aggregation.models import AggregationRun
from designs.semeval import labeling_batch_create
from jobs.models import Job
from tests.hits.helpers import items

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _wait(job, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.state in (Job.State.DONE, Job.State.FAILED):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job.pk} still {job.state} after {seconds}s")


def test_publish_then_aggregate_jobs_run_in_the_worker(celery_worker):
    organizer = User.objects.create_user("boss", password="pass-word-1", is_staff=True)
    client = Client()
    client.force_login(organizer)
    batch = labeling_batch_create(name="worker jobs", items=items(40), items_per_hit=10)
    client.post("/dashboard/jobs/", {"kind": "publish", "target": str(batch.pk)})
    publish = _wait(Job.objects.get(kind="publish"))
    assert publish.state == "done" and publish.started is not None
    assert "4 HITs" in publish.message
    page = client.get("/dashboard/").content.decode()
    assert "4 / 4" in page  # HITs published, from the HIT rows
    client.post("/dashboard/jobs/", {"kind": "aggregate", "target": str(batch.pk)})
    aggregate = _wait(Job.objects.get(kind="aggregate"))
    assert aggregate.state == "done"
    assert AggregationRun.objects.filter(pk=aggregate.result["run"], batch=batch).exists()
