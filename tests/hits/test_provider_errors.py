"""Provider failures end as one message naming the operation and what to do: from the command, from a job
started on a page (failed, never a 500), and with the batch left to resume."""

import os
import socket
from io import StringIO
from unittest import mock

import boto3
from botocore.config import Config
from django.core.management import CommandError, call_command

from emulators.mturk import MTurkEmulator
from hits.models import Batch
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from jobs.models import Job
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch


def _closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ProviderErrorTests(BaseTestCase):
    def use(self, client):
        previous = use_provider("mturk", MTurkProvider(client))
        self.addCleanup(use_provider, "mturk", previous)

    def test_an_unreachable_endpoint_is_a_message_and_the_dashboard_job_fails_with_it(self):
        self.use(boto3.client("mturk", region_name="us-east-1", endpoint_url=f"http://127.0.0.1:{_closed_port()}",
                              aws_access_key_id="x", aws_secret_access_key="x",
                              config=Config(retries={"mode": "standard", "total_max_attempts": 2},
                                            connect_timeout=1)))
        batch = make_batch(count=5, provider="mturk")
        with self.assertRaisesRegex(CommandError, r"MTurk GetAccountBalance: cannot reach http://127.0.0.1:\d+/; "
                                                  r"check MTURK_ENDPOINT_URL"):
            call_command("hits", "publish", str(batch.pk), stdout=StringIO())
        self.login(self.organizer)
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post("/dashboard/jobs/", {"kind": "publish", "target": str(batch.pk)})
        response = self.client.get("/dashboard/")
        self.assertEqual(response.status_code, 200)
        job = Job.objects.get()
        self.assertEqual(job.state, "failed")
        self.assertIn("cannot reach", job.message)
        self.assertContains(response, "cannot reach")
        project = project_create(name="P", user=self.organizer)
        project.batches.add(batch)
        page = self.client.get(f"/projects/p/batches/{batch.pk}/publish/")
        self.assertContains(page, "unknown: MTurk GetAccountBalance: cannot reach")
        self.assertEqual(Batch.objects.get(pk=batch.pk).state, "draft")

    def test_missing_credentials_are_named(self):
        bare = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
        bare.update(AWS_SHARED_CREDENTIALS_FILE="/nonexistent", AWS_CONFIG_FILE="/nonexistent",
                    AWS_EC2_METADATA_DISABLED="true")
        with mock.patch.dict(os.environ, bare, clear=True):
            self.use(boto3.session.Session().client("mturk", region_name="us-east-1",
                                                    endpoint_url="http://127.0.0.1:9"))
            batch = make_batch(count=5, provider="mturk")
            with self.assertRaisesRegex(CommandError, "MTurk GetAccountBalance: no AWS credentials; set "
                                                      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
                call_command("hits", "publish", str(batch.pk), stdout=StringIO())

    def test_a_publish_that_fails_halfway_says_how_far_it_got_and_resumes(self):
        with MTurkEmulator(seed=2) as emulator:
            self.use(emulator.client(backoff=False, retries={"mode": "standard", "total_max_attempts": 1}))
            batch = make_batch(count=20, items_per_hit=5, provider="mturk")
            # The third create answers 500 (a ServiceFault) and, with no retries left, the publish stops there.
            emulator.faults.set({"CreateHITWithHITType": {"next": {}}})
            calls = {"n": 0}
            draw = emulator.faults.draw

            def third_fails(operation):
                if operation == "CreateHITWithHITType":
                    calls["n"] += 1
                    if calls["n"] == 3:
                        return "error"
                return draw(operation)

            emulator.faults.draw = third_fails
            with self.assertRaisesRegex(CommandError, r"2 of 4 HITs published; publish again to go on"):
                call_command("hits", "publish", str(batch.pk), stdout=StringIO())
            self.assertEqual(Batch.objects.get(pk=batch.pk).state, "publishing")
            call_command("hits", "publish", str(batch.pk), stdout=StringIO())
            self.assertEqual(len(emulator.account.hits), 4)
            self.assertEqual(Batch.objects.get(pk=batch.pk).state, "published")
