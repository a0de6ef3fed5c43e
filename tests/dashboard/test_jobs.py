"""Long actions started from the pages run as jobs; the dashboard and the dataset pages show them."""

import shutil
import tempfile
from pathlib import Path

from django.test import override_settings

from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.models import Hit
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from jobs.models import Job
from releases.services import dataset_from_aggregation
from tests.base import BaseTestCase
from tests.hits.helpers import items


class JobTest(BaseTestCase):
    def setUp(self):
        self.login(self.organizer)

    def start(self, kind, target):
        with self.captureOnCommitCallbacks(execute=True):  # the job is handed to Celery on commit
            response = self.client.post("/dashboard/jobs/", {"kind": kind, "target": str(target)})
        return self.client.get(response.url)

    def test_publish_from_the_dashboard_runs_a_job_and_shows_its_progress(self):
        batch = labeling_batch_create(name="from the page", items=items(30), items_per_hit=10)
        page = self.client.get("/dashboard/").content.decode()
        self.assertIn(">Publish</button>", page)
        response = self.start("publish", batch.pk)
        job = Job.objects.get()
        self.assertEqual((job.kind, job.state, job.created_by), ("publish", "done", self.organizer))
        self.assertContains(response, f"Job {job.pk} (publish {batch.pk}): queued")
        self.assertContains(response, f'<td>{job.pk}</td><td>publish {batch.pk}</td><td><span class="state done">'
                                      f"done</span></td>")
        self.assertContains(response, "3 / 3")  # HITs published, read from the HIT rows
        self.assertEqual(Hit.objects.filter(batch=batch, state="published").count(), 3)

    def test_a_job_that_cannot_be_done_fails_with_the_reason(self):
        batch = labeling_batch_create(name="tight", items=items(30), items_per_hit=10, budget=1)
        response = self.start("publish", batch.pk)
        job = Job.objects.get()
        self.assertEqual(job.state, "failed")
        self.assertIn("over its budget of 1.00", job.message)
        self.assertContains(response, "over its budget of 1.00")

    def test_bad_job_requests_are_refused(self):
        for kind, target, message in (("publish", "abc", "is not an id"), ("publish", "²", "is not an id"),
                                      ("publish", "99999999999999999999", "is not an id"),
                                      ("nonsense", "1", "unknown job kind"),
                                      ("sync", "999", "there is no batch 999")):
            with self.subTest(kind=kind, target=target):
                self.assertContains(self.start(kind, target), message)
        self.assertFalse(Job.objects.exists())


class ExportDownloadTest(BaseTestCase):
    def setUp(self):
        batch = batch_publish(batch=labeling_batch_create(name="votes", items=items(10)))
        for n in range(5):
            worker = worker_for_user(self._user(f"voter{n}", None))
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": str(int(item.key[1:]) % 2) for item in assignment.hit.ordered_items()})
        self.version = dataset_from_aggregation(run=batch_aggregate(batch=batch, seed=1), name="v1")

    def test_a_researcher_exports_and_downloads(self):
        self.login(self.researcher)
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder, True)
        with override_settings(EXPORT_ROOT=Path(folder)), self.captureOnCommitCallbacks(execute=True):
            response = self.client.post("/datasets/v1/export/")
        page = self.client.get(response.url).content.decode()
        self.assertIn("Last export job: done, 8 files written", page)
        self.assertIn('href="/datasets/v1/files/subtask1_train.csv"', page)
        response = self.client.get("/datasets/v1/files/subtask1_train.csv")
        self.assertEqual(response.status_code, 200)
        self.assertTrue(b"".join(response.streaming_content).startswith(b"sentenceID,gold_label,sentence"))
        for name in ("../settings.py", "nothing.csv", "..%2F..%2Fetc%2Fpasswd"):
            self.assertEqual(self.client.get(f"/datasets/v1/files/{name}").status_code, 404)
