"""The JSON API: tokens, roles, the objects it serves, the jobs it starts, and a schema that validates."""

import shutil
import tempfile
from pathlib import Path

from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from jobs.models import Job
from projects.services import project_create
from releases.services import dataset_from_aggregation
from tests.base import BaseTestCase
from tests.hits.helpers import items


class ApiTest(BaseTestCase):
    def setUp(self):
        self.project = project_create(name="API", user=self.organizer)
        self.batch = batch_publish(batch=labeling_batch_create(name="b", items=items(10)))
        self.project.batches.add(self.batch)
        for n in range(5):
            worker = worker_for_user(self._user(f"voter{n}", None))
            assignment = assignment_claim(batch=self.batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
        self.run_ = batch_aggregate(batch=self.batch, samples=100)
        self.version = dataset_from_aggregation(run=self.run_, name="api-v1")

    def client_for(self, user):
        client = APIClient()
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        return client

    def test_without_a_token_every_endpoint_answers_401(self):
        client = self.client_for(None)
        for url in ("/api/projects/", "/api/batches/", "/api/hits/", "/api/assignments/", "/api/aggregations/",
                    "/api/versions/", "/api/jobs/", f"/api/batches/{self.batch.pk}/"):
            with self.subTest(url=url):
                response = client.get(url)
                self.assertEqual(response.status_code, 401)
                self.assertEqual(response["WWW-Authenticate"], "Token")
        self.assertEqual(client.post(f"/api/batches/{self.batch.pk}/sync/").status_code, 401)

    def test_each_role_reads_only_its_own_objects(self):
        annotator, researcher = self.client_for(self.annotator), self.client_for(self.researcher)
        for url in ("/api/projects/", "/api/batches/", "/api/hits/", "/api/assignments/", "/api/versions/",
                    "/api/aggregations/"):
            with self.subTest(url=url):
                self.assertEqual(annotator.get(url).status_code, 403)
        for url in ("/api/projects/", "/api/batches/", "/api/hits/", "/api/assignments/"):
            with self.subTest(url=url):
                self.assertEqual(researcher.get(url).status_code, 403)
        self.assertEqual(researcher.get("/api/versions/").status_code, 200)
        self.assertEqual(researcher.post(f"/api/batches/{self.batch.pk}/publish/").status_code, 403)

    def test_an_organizer_reads_the_objects_and_starts_jobs(self):
        client = self.client_for(self.organizer)
        project = client.get("/api/projects/api/").json()
        self.assertEqual((project["slug"], project["batches"]), ("api", [self.batch.pk]))
        steps = client.get("/api/projects/api/steps/").json()
        self.assertEqual(steps[0]["key"], "corpus")
        batch = client.get(f"/api/batches/{self.batch.pk}/").json()
        self.assertEqual((batch["hits_total"], batch["assignments"]), (1, {"submitted": 5}))
        self.assertEqual(batch["estimate"], "2.50")
        listed = client.get("/api/batches/", {"project": "api"}).json()
        self.assertEqual([row["id"] for row in listed["results"]], [self.batch.pk])
        assignments = client.get("/api/assignments/", {"batch": self.batch.pk, "state": "submitted"}).json()
        self.assertEqual(assignments["count"], 5)
        first = assignments["results"][0]["id"]
        self.assertEqual(client.post(f"/api/assignments/{first}/approve/", {"feedback": "thanks"}).json()["state"],
                         "approved")
        refused = client.post(f"/api/assignments/{first}/reject/", {"feedback": "no"})
        self.assertEqual(refused.status_code, 400)
        self.assertIn("only submitted work can be rejected", refused.json()["detail"])
        with self.captureOnCommitCallbacks(execute=True):
            started = client.post(f"/api/batches/{self.batch.pk}/sync/")
        self.assertEqual((started.status_code, started.json()["kind"]), (202, "sync"))
        job = client.get(f"/api/jobs/{started.json()['id']}/").json()
        self.assertEqual(job["state"], "done", job)
        self.assertEqual(Job.objects.count(), 1)

    def test_a_json_body_nested_past_reading_is_a_400_not_a_server_error(self):
        """Lists nested a hundred thousand deep made Python's JSON reader recurse past its limit: DRF's parser let
        the error through as a 500. It is a 400 like any JSON that cannot be read, and nothing is done."""
        client = self.client_for(self.organizer)
        first = client.get("/api/assignments/", {"batch": self.batch.pk}).json()["results"][0]["id"]
        response = client.post(f"/api/assignments/{first}/approve/", data=b"[" * 100_000 + b"]" * 100_000,
                               content_type="application/json")
        self.assertEqual(response.status_code, 400)
        self.assertIn("nested too deeply", response.json()["detail"])
        self.assertEqual(client.get(f"/api/assignments/{first}/").json()["state"], "submitted")
        malformed = client.post(f"/api/assignments/{first}/approve/", data=b"{", content_type="application/json")
        self.assertEqual(malformed.status_code, 400)

    def test_a_researcher_exports_a_version_and_downloads_its_files(self):
        folder = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, folder, True)
        client = self.client_for(self.researcher)
        with override_settings(EXPORT_ROOT=folder), self.captureOnCommitCallbacks(execute=True):
            self.assertEqual(client.post("/api/versions/api-v1/export/").status_code, 202)
        version = client.get("/api/versions/api-v1/").json()
        self.assertEqual(version["table1"]["total"]["total"], 10)
        self.assertIn("subtask1_train.csv", version["files"])
        response = client.get("/api/versions/api-v1/files/subtask1_train.csv/")
        self.assertTrue(b"".join(response.streaming_content).startswith(b"sentenceID,gold_label,sentence"))
        self.assertEqual(client.get("/api/versions/api-v1/files/..%2Fsettings.py/").status_code, 404)
        self.assertEqual(client.get("/api/versions/api-v1/files/nothing.csv/").status_code, 404)

    def test_the_openapi_schema_validates(self):
        schema = SchemaGenerator().get_schema(request=None, public=True)
        validate_schema(schema)
        for path in ("/api/projects/", "/api/batches/{id}/publish/", "/api/versions/{name}/files/{filename}/",
                     "/api/assignments/{id}/approve/", "/api/jobs/{id}/"):
            self.assertIn(path, schema["paths"])
        response = self.client_for(self.organizer).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
        self.assertEqual(response.status_code, 200)


class TokenPageTest(BaseTestCase):
    def test_an_organizer_makes_a_token_and_an_annotator_cannot(self):
        self.login(self.researcher)
        self.client.post("/accounts/token/")
        token = Token.objects.get(user=self.researcher)
        self.assertContains(self.client.get("/accounts/token/"), f"Token {token.key}")
        self.login(self.annotator)
        self.assertEqual(self.client.get("/accounts/token/").status_code, 403)


