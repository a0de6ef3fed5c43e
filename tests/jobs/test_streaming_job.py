"""A job that streams a large read records its progress without writing on the connection that reads: on the
embedded SQLite, a write on a connection whose read began before another connection's write (the heartbeat's)
is refused as "database is locked". The progress goes through the heartbeat's thread, and the page reads it."""

import pytest
from django.test import override_settings

from bench.scale_bench import fill
from jobs.models import Job
from jobs.services import job_run
from projects.jobs import done_of
from projects.models import BatchFigures


@pytest.mark.django_db(transaction=True)
def test_a_figures_job_reads_a_batch_while_its_heartbeat_writes():
    project, batch, _ = fill(5000, name="Streamed")
    job = Job.objects.create(kind="project-figures", target=project.pk, options={"batch": batch.pk})
    # A heartbeat every 20 ms: it writes many times while the batch is read.
    with override_settings(JOB_HEARTBEAT_SECONDS=0.02):
        job_run(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE, job.message
    figures = BatchFigures.objects.get(batch=batch, design=project.design)
    assert "counterfactual: alpha" in figures.text and figures.work_version == batch.work_version
    assert done_of(job) == (4000, 5000)  # the last progress it recorded: items read, of all
