"""Logging in, deployment settings, exports that cannot overwrite each other, and pages that never 500."""

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.test import override_settings

from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from jobs.models import Job
from releases.services import DatasetError, dataset_export, dataset_from_aggregation
from tests.base import BaseTestCase
from tests.hits.helpers import items

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args, **env):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("SECRET_KEY", "DEBUG", "DATABASE_URL", "CELERY_BROKER_URL")}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=120)


def test_production_settings_pass_check_deploy_without_a_warning():
    done = _manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="false",
                   SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="crowd.example.org")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_the_site_refuses_to_start_with_debug_off_and_the_built_in_key():
    done = _manage("check", DEBUG="false")
    assert done.returncode != 0
    assert "DEBUG is off but SECRET_KEY is not set: set SECRET_KEY" in done.stderr


class LoginTests(BaseTestCase):
    def test_sixty_wrong_passwords_lock_the_account_and_the_right_one_is_refused_then(self):
        for _ in range(60):
            response = self.client.post("/accounts/login/", {"username": "annotator", "password": "wrong"})
        self.assertEqual(response.status_code, 429)
        self.assertContains(response, "Too many wrong passwords", status_code=429)
        response = self.client.post("/accounts/login/", {"username": "annotator", "password": self.password})
        self.assertEqual(response.status_code, 429)
        self.assertNotIn("_auth_user_id", self.client.session)
        # Another account is not locked by it.
        response = self.client.post("/accounts/login/", {"username": "researcher", "password": self.password})
        self.assertRedirects(response, "/", fetch_redirect_response=False)

    def test_a_login_lands_on_the_roles_home_not_on_a_missing_profile_page(self):
        response = self.client.post("/accounts/login/", {"username": "annotator", "password": self.password},
                                    follow=True)
        self.assertEqual(response.redirect_chain[-1][0], "/work/")

    def test_pages_that_are_refused_or_missing_are_the_sites_own(self):
        self.login(self.annotator)
        for url, status in (("/dashboard/", 403), ("/work/assignments/999999/", 404), ("/nothing-here/", 404)):
            response = self.client.get(url)
            self.assertEqual(response.status_code, status, url)
            self.assertContains(response, "/static/css/site.css", status_code=status)


class ExportFolderTests(BaseTestCase):
    def setUp(self):
        batch = batch_publish(batch=labeling_batch_create(name="votes", items=items(10)))
        for n in range(5):
            worker = worker_for_user(self._user(f"voter{n}", None))
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
        run = batch_aggregate(batch=batch, samples=100)
        self.a = dataset_from_aggregation(run=run, name="a")
        self.b = dataset_from_aggregation(run=run, name="b", seed=3)
        self.folder = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.folder, True)

    def test_a_version_cannot_export_into_another_versions_folder(self):
        dataset_export(version=self.a, folder=self.folder / "a")
        before = (self.folder / "a" / "subtask1_train.csv").read_bytes()
        with self.assertRaisesRegex(DatasetError, "holds the export of dataset version 'a'; export 'b' into a "
                                                  "folder of its own"):
            dataset_export(version=self.b, folder=self.folder / "a")
        self.assertEqual((self.folder / "a" / "subtask1_train.csv").read_bytes(), before)
        dataset_export(version=self.a, folder=self.folder / "a")  # the same version again is fine
        (self.folder / "other").mkdir()
        (self.folder / "other" / "notes.txt").write_text("mine")
        with self.assertRaisesRegex(DatasetError, "is not empty and holds no export"):
            dataset_export(version=self.b, folder=self.folder / "other")

    def test_the_export_job_of_the_pages_writes_each_version_to_its_own_folder(self):
        self.login(self.researcher)
        with override_settings(EXPORT_ROOT=self.folder), self.captureOnCommitCallbacks(execute=True):
            self.client.post("/datasets/a/export/")
        with override_settings(EXPORT_ROOT=self.folder), self.captureOnCommitCallbacks(execute=True):
            self.client.post("/datasets/b/export/")
        self.assertEqual(sorted(Job.objects.values_list("state", flat=True)), ["done", "done"])
        a = b"".join(self.client.get("/datasets/a/files/subtask1_test.csv").streaming_content)
        b = b"".join(self.client.get("/datasets/b/files/subtask1_test.csv").streaming_content)
        self.assertEqual(a, (self.folder / "a" / "subtask1_test.csv").read_bytes())
        self.assertEqual(b, (self.folder / "b" / "subtask1_test.csv").read_bytes())
