"""One site, two studies: the people of project A see and do nothing of project B.

Every URL pattern of the site (pages and the API) is asked, with GET and POST, by each of A's people (its
organizer, reviewer, annotator and researcher, none of them with a role on the site) about B's objects: B's
project, batch, assignment, span annotation, spot check, aggregation, version, screening test, attempt, upload,
invite, member and job. Nothing answers with B's data: a page of B's is not found (404), never a 403 that would
say it exists; an API list shows none of B's objects. The same people do see A's own (so the refusals are not
merely everything refused)."""

import re

from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from aggregation.services import batch_aggregate, spotcheck_draw
from annotation.models import SpanAnnotation
from designs.semeval import labeling_batch_create, spans_batch_create
from hits.models import Assignment
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from jobs.models import Job
from projects.models import Invite, Member, Upload
from projects.people import member_add
from projects.services import project_create
from qualification.services import attempt_start, qualification_test_create
from releases.services import dataset_from_aggregation
from tests.base import BaseTestCase
from tests.fixtures import released_sample
from tests.hits.helpers import spec

# What only B's objects carry: none of it may appear in anything A's people are answered.
MARKERS = ("Beta study", "beta batch", "BETA-SENTENCE", "beta-v1", "beta-screen", "beta-annotator", "beta-spans",
           "beta-invitee")
# Routes anyone may open, or that are guarded by something else than project roles: logging in and out, joining
# by an invite's token (the token is the way in), Prolific's and MTurk's entries (checked against the provider:
# tests/hits), the webhook (signed), and the API's schema.
EXEMPT = {"login", "logout", "password_reset", "password_reset_done", "password_reset_confirm",
          "password_reset_complete", "password_change", "password_change_done", "home", "join", "api_token",
          "prolific_start", "prolific_hook", "mturk_hit", "qualification:prolific_start", "api:schema",
          "api:api-root"}


def _routes(resolver=None, prefix="", namespace=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern).startswith("admin/"):
                continue  # staff only (tests/test_admin.py)
            yield from _routes(pattern, prefix + str(pattern.pattern),
                               f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}", prefix + str(pattern.pattern)


class TwoStudies(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.a, cls.a_batch = cls._study("Alpha study", "alpha")
        cls.b, cls.b_batch = cls._study("Beta study", "beta")
        cls.people = {role: User.objects.create_user(f"alpha-team-{role}", password="x") for role in
                      ("organizer", "reviewer", "annotator", "researcher")}
        for role, user in cls.people.items():
            member_add(project=cls.a, user=user, role=role)
        cls.b_assignment = Assignment.objects.filter(hit__batch=cls.b_batch).first()
        cls.b_run = batch_aggregate(batch=cls.b_batch, samples=50)
        cls.b.aggregations.add(cls.b_run)
        cls.b_version = dataset_from_aggregation(run=cls.b_run, name="beta-v1")
        cls.b.versions.add(cls.b_version)
        (cls.b_check, *_) = spotcheck_draw(batch=cls.b_batch, rate=1.0)
        spans = spans_batch_create(name="beta-spans", items=[spec("bs", "BETA-SENTENCE had I known.")])
        cls.b.batches.add(spans)
        cls.b_annotation = SpanAnnotation.objects.create(item=spans.items.get(), text="BETA-SENTENCE had I known.")
        cls.b_test = qualification_test_create(name="beta-screen", path=released_sample())
        cls.b.tests.add(cls.b_test)
        b_worker = worker_for_user(User.objects.get(username="beta-annotator"))
        cls.b_attempt = attempt_start(test=cls.b_test, worker=b_worker)
        cls.b_upload = Upload.objects.create(project=cls.b, kind=Upload.Kind.CORPUS, name="beta.jsonl",
                                             path="beta.jsonl", format="jsonl", size=1)
        cls.b_invite = Invite.objects.create(project=cls.b, kind=Invite.Kind.PERSON, token="beta-token",
                                             name="beta-invitee")
        cls.b_member = Member.objects.get(project=cls.b, user__username="beta-annotator")
        cls.b_job = Job.objects.create(kind="project-ingest", target=cls.b.pk, state="done")

    @classmethod
    def _study(cls, name, prefix):
        organizer = User.objects.create_user(f"{prefix}-boss", password="x")
        project = project_create(name=name, user=organizer)
        annotator = User.objects.create_user(f"{prefix}-annotator", password="x")
        member_add(project=project, user=annotator)
        batch = batch_publish(batch=labeling_batch_create(
            name=f"{prefix} batch", items=[spec(f"{prefix}{n}", f"{prefix.upper()}-SENTENCE {n}.") for n in range(8)],
            items_per_hit=4, assignments_per_hit=5))
        project.batches.add(batch)
        for n in range(5):
            voter = annotator if n == 0 else User.objects.create_user(f"{prefix}-voter{n}", password="x")
            if n:
                member_add(project=project, user=voter)
            worker = worker_for_user(voter)
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
        return project, batch

    def _values(self, name):
        """B's object for each kind of URL parameter, by the route's name where a name could mean two things."""
        test_or_version = self.b_test.name if name.startswith("qualification:") else self.b_version.name
        return {"slug": self.b.slug, "batch_id": self.b_batch.pk, "assignment_id": self.b_assignment.pk,
                "annotation_id": self.b_annotation.pk, "check_id": self.b_check.pk, "run_id": self.b_run.pk,
                "job_id": self.b_job.pk, "upload_id": self.b_upload.pk, "invite_id": self.b_invite.pk,
                "member_id": self.b_member.pk, "item_id": self.b_test.items.first().pk, "name": test_or_version,
                "attempt_id": self.b_attempt.pk, "origin": self.b_batch.items.first().pk, "state": "paused",
                "action": "sync", "filename": "README.md", "pk": self.b_batch.pk, "token": self.b_invite.token,
                "scheme_name": "events"}

    def _path(self, name, route):
        values = self._values(name)

        def fill(match):
            key = match.group(2)
            if name.startswith("api:") and key == "pk":
                return str({"api:hit-detail": self.b_batch.hits.first().pk,
                            "api:assignment-detail": self.b_assignment.pk, "api:aggregation-detail": self.b_run.pk,
                            "api:job-detail": self.b_job.pk}.get(name.split("-")[0] + "-detail", self.b_batch.pk))
            return str(values[key])

        path = re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda match: str(values.get(match.group(1), "x")), path)
        return "/" + path.lstrip("^").rstrip("$").replace("\\.", ".").replace("\\", "")

    def test_every_url_answers_nothing_of_the_other_project(self):
        routes = [(name, route) for name, route in _routes() if name not in EXEMPT and "format" not in route]
        self.assertGreater(len(routes), 60)
        for role, user in self.people.items():
            client = Client()
            client.force_login(user)
            api = APIClient()
            api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
            for name, route in routes:
                path = self._path(name, route)
                asking = api if name.startswith("api:") else client
                for method in ("get", "post"):
                    with self.subTest(role=role, url=path, method=method):
                        response = getattr(asking, method)(path)
                        body = response.content.decode(errors="replace")
                        found = [marker for marker in MARKERS if marker in body]
                        self.assertEqual(found, [], f"{role} {method.upper()} {path} shows {found}")
                        self.assertNotEqual(response.status_code, 500)
                        if path.startswith(f"/projects/{self.b.slug}/"):
                            # A page of B's is not found: a 403 would say it exists.
                            self.assertEqual(response.status_code, 404)

    def test_a_page_of_the_other_project_is_not_found_rather_than_forbidden(self):
        client = Client()
        client.force_login(self.people["organizer"])
        for path in (f"/projects/{self.b.slug}/", f"/projects/{self.b.slug}/batches/{self.b_batch.pk}/",
                     f"/projects/{self.b.slug}/people/", f"/review/spans/{self.b_annotation.pk}/"):
            with self.subTest(path=path):
                self.assertEqual(client.get(path).status_code, 404)
        api = APIClient()
        api.force_authenticate(self.people["organizer"])
        for path in (f"/api/projects/{self.b.slug}/", f"/api/batches/{self.b_batch.pk}/",
                     f"/api/assignments/{self.b_assignment.pk}/", f"/api/versions/{self.b_version.name}/"):
            with self.subTest(path=path):
                self.assertEqual(api.get(path).status_code, 404)
        self.assertEqual(api.post(f"/api/batches/{self.b_batch.pk}/sync/").status_code, 404)

    def test_each_of_a_s_people_sees_a_s_own(self):
        """The refusals above are about B: A's people reach A's objects by their roles."""
        organizer, annotator, researcher = (Client() for _ in range(3))
        organizer.force_login(self.people["organizer"])
        annotator.force_login(self.people["annotator"])
        researcher.force_login(self.people["researcher"])
        self.assertContains(organizer.get(f"/projects/{self.a.slug}/"), "Alpha study")
        self.assertContains(organizer.get("/projects/"), "Alpha study")
        self.assertNotContains(organizer.get("/projects/"), "Beta study")
        self.assertContains(organizer.get("/dashboard/"), "alpha batch")
        self.assertContains(annotator.get("/work/"), "alpha batch")
        self.assertEqual(annotator.get(f"/projects/{self.a.slug}/").status_code, 404)  # not its organizer
        api = APIClient()
        api.force_authenticate(self.people["organizer"])
        listed = {row["id"] for row in api.get("/api/batches/").json()["results"]}
        self.assertEqual(listed, {self.a_batch.pk})
        self.assertEqual(api.get(f"/api/batches/{self.a_batch.pk}/").status_code, 200)

    def test_a_claim_of_the_other_project_creates_nothing(self):
        client = Client()
        client.force_login(self.people["annotator"])
        before = Assignment.objects.count()
        self.assertEqual(client.post(f"/work/batches/{self.b_batch.pk}/claim/").status_code, 404)
        self.assertEqual(Assignment.objects.count(), before)

    def test_a_project_open_to_the_site_is_open_to_every_annotator_for_work_only(self):
        from projects.people import project_open

        project_open(project=self.b, open_to_site=True)
        client = Client()
        client.force_login(self.people["annotator"])  # an annotator of A: an annotator of the site
        self.assertContains(client.get("/work/"), "beta batch")
        self.assertEqual(client.get(f"/projects/{self.b.slug}/").status_code, 404)
        researcher = Client()
        researcher.force_login(self.people["researcher"])  # not an annotator anywhere
        self.assertNotContains(researcher.get("/datasets/"), "beta-v1")
