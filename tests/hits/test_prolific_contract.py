"""The Prolific emulator's answers against the reference (shared/docs/prolific-api.md), endpoint by
endpoint: a whole study is run through the provider with a recording `requests.Session` handed to it (the
library untouched), and every answer the provider got, every webhook event the emulator sent and the
errors it must give are checked against a JSON Schema written from the reference for that endpoint. Every
endpoint the provider uses must have been seen."""

import re

import jsonschema
import requests
from django.test import Client, override_settings

from emulators.prolific import ProlificEmulator
from emulators.prolific.participant import EmulatedParticipant
from hits.models import Assignment
from hits.providers import use_provider
from hits.providers.base import ProviderError
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import (
    CrowdError,
    assignment_approve,
    assignment_reject,
    batch_expire,
    batch_publish,
    batch_sync,
    worker_bonus,
)
from qualification.prolific import screening_study_create
from qualification.services import qualification_test_create
from tests.base import BaseTestCase
from tests.fixtures import released_sample
from tests.hits.helpers import make_batch

ID = {"type": "string", "pattern": "^[0-9a-f]{24}$"}
# ISO 8601 date and time, as Prolific writes them.
TIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$"}
TIME_OR_NULL = {"anyOf": [TIME, {"type": "null"}]}
LINK = {"type": ["object", "null"], "properties": {"href": {"type": ["string", "null"]}}}
AMOUNT = {"type": "number"}  # minor units; fees and VAT may hold fractions
WHOLE = {"type": "integer", "minimum": 0}


def shape(required, **properties):
    """An object with every documented field (required), each of its documented type; other fields are allowed,
    as Prolific adds fields without notice."""
    return {"type": "object", "required": list(required), "properties": properties}


def page_of(item):
    """Prolific's list shape."""
    return shape(["results", "_links", "meta"], results={"type": "array", "items": item},
                 _links=shape(["next"], self=LINK, next=LINK, previous=LINK, last=LINK),
                 meta=shape(["count"], count=WHOLE))


ERROR = {"anyOf": [shape(["error"], error=shape(["status", "detail"], status={"type": "integer"},
                                                error_code={"type": "integer"}, title={"type": "string"},
                                                detail={"type": ["string", "object", "array"]},
                                                additional_information={})),
                   shape(["detail"], message={"type": "string"}, detail={})]}  # some endpoints answer this
STUDY_STATUS = {"enum": ["UNPUBLISHED", "PUBLISHING", "SCHEDULED", "ACTIVE", "PAUSED", "AWAITING REVIEW", "COMPLETED",
                         "PROCESSING"]}
CODE = shape(["code", "code_type"], code={"type": "string"}, code_type={"type": "string"},
             actions={"type": "array", "items": shape(["action"], action={"type": "string"})})
FILTER = shape(["filter_id"], filter_id={"type": "string"},
               selected_range={"type": "object", "properties": {"lower": {"type": "number"},
                                                                "upper": {"type": "number"}}},
               selected_values={"type": "array", "items": {"type": "string"}})
STUDY = shape(["id", "name", "internal_name", "description", "external_study_url", "prolific_id_option",
               "completion_codes", "total_available_places", "estimated_completion_time", "maximum_allowed_time",
               "reward", "device_compatibility", "project", "filters", "submissions_config", "status"],
              id=ID, name={"type": "string"}, internal_name={"type": ["string", "null"]},
              description={"type": "string"}, external_study_url={"type": "string"},
              prolific_id_option={"type": "string"}, completion_codes={"type": "array", "items": CODE},
              total_available_places=WHOLE, estimated_completion_time=WHOLE, maximum_allowed_time=WHOLE,
              reward=WHOLE, device_compatibility={"type": "array", "items": {"type": "string"}},
              project={"type": ["string", "null"]}, filters={"type": "array", "items": FILTER},
              submissions_config=shape([], max_submissions_per_participant={"type": "integer"}),
              status=STUDY_STATUS, places_taken=WHOLE, eligibility_requirements=False)  # deprecated: never sent
SUBMISSION_STATUS = {"enum": ["RESERVED", "ACTIVE", "TIMED-OUT", "AWAITING REVIEW", "APPROVED", "RETURNED",
                              "REJECTED", "SCREENED OUT", "PARTIALLY APPROVED", "PROCESSING"]}
# The detail names the participant `participant`; the study's list, `participant_id`. `return_requested` is when
# the researcher asked for a return, or null.
SUBMISSION_DETAIL = shape(["id", "study_id", "participant", "status", "started_at", "completed_at", "entered_code",
                           "bonus_payments", "return_requested", "parent_study_id"],
                          id=ID, study_id=ID, participant={"type": "string"}, status=SUBMISSION_STATUS,
                          started_at=TIME, completed_at=TIME_OR_NULL, entered_code={"type": ["string", "null"]},
                          bonus_payments={"type": "array", "items": AMOUNT}, return_requested=TIME_OR_NULL,
                          parent_study_id={"type": ["string", "null"]})
SUBMISSION_LISTED = shape(["id", "participant_id", "status", "started_at", "completed_at", "has_siblings",
                           "study_code", "return_requested"],
                          id=ID, participant_id={"type": "string"}, status=SUBMISSION_STATUS, started_at=TIME,
                          completed_at=TIME_OR_NULL, has_siblings={"type": "boolean"},
                          study_code={"type": ["string", "null"]}, return_requested=TIME_OR_NULL)
GROUP = shape(["id", "name"], id=ID, name={"type": "string"})
BREAKDOWN = shape(["rewards", "fees", "vat"], rewards=AMOUNT, fees=AMOUNT, vat=AMOUNT)
BALANCE = shape(["currency_code", "total_balance", "balance_breakdown", "available_balance"],
                currency_code={"enum": ["GBP", "USD"]}, total_balance=AMOUNT, balance_breakdown=BREAKDOWN,
                available_balance=AMOUNT)
BONUS_SET = shape(["id", "study", "amount", "fees", "vat", "total_amount"], id=ID, study=ID, amount=AMOUNT,
                  fees=AMOUNT, vat=AMOUNT, total_amount=AMOUNT)

# (method, path pattern under /api/v1/, status, schema of the answer)
ENDPOINTS = [
    ("GET", r"workspaces/", 200, page_of(shape(["id"], id=ID))),
    ("GET", r"workspaces/{id}/balance/", 200, BALANCE),
    ("GET", r"filters/", 200, page_of(shape(["filter_id"], filter_id={"type": "string"}))),
    ("POST", r"studies/", 201, STUDY),
    ("GET", r"studies/", 200, page_of(STUDY)),
    ("GET", r"studies/{id}/", 200, STUDY),
    ("PATCH", r"studies/{id}/", 200, STUDY),
    ("POST", r"studies/{id}/transition/", 200, STUDY),
    ("GET", r"studies/{id}/submissions/", 200, page_of(SUBMISSION_LISTED)),
    ("GET", r"submissions/{id}/", 200, SUBMISSION_DETAIL),
    ("GET", r"submissions/{id}/", 404, ERROR),
    ("POST", r"submissions/{id}/transition/", 200, SUBMISSION_DETAIL),
    ("POST", r"submissions/{id}/transition/", 400, ERROR),
    ("POST", r"submissions/bonus-payments/", 201, BONUS_SET),
    ("POST", r"bulk-bonus-payments/{id}/pay/", 202, {"type": "object"}),
    ("GET", r"participant-groups/", 200, page_of(GROUP)),
    ("POST", r"participant-groups/", 201, GROUP),
    ("POST", r"participant-groups/{id}/participants/", 200, {"type": ["array", "object"]}),
]
EVENTS = {
    "submission.status.change": shape(["resource_id", "event_type", "participant_id", "status"], resource_id=ID,
                                      event_type={"const": "submission.status.change"},
                                      participant_id={"type": "string"}, status=SUBMISSION_STATUS,
                                      study_id=False),  # the submission event names no study
    "study.status.change": shape(["resource_id", "event_type", "status"], resource_id=ID,
                                 event_type={"const": "study.status.change"}, status=STUDY_STATUS,
                                 metadata={"type": ["object", "null"]}),
}


def _pattern(path):
    return re.compile("^" + re.escape(path).replace(r"\{id\}", "[0-9a-f]{24}") + "$")


COMPILED = [(method, _pattern(path), path, status, schema) for method, path, status, schema in ENDPOINTS]


class RecordingSession(requests.Session):
    """A real session that keeps every answer it gets: (method, path under /api/v1/, status, JSON body)."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def request(self, method, url, *args, **kwargs):
        response = super().request(method, url, *args, **kwargs)
        path = url.split("/api/v1/", 1)[1].split("?", 1)[0]
        self.seen.append((method, path, response.status_code, response.json() if response.content else None))
        return response


def check(method, path, status, body):
    """The endpoint's schema for this answer; raises when it does not match or no schema covers it."""
    for wanted_method, pattern, name, wanted_status, schema in COMPILED:
        if wanted_method == method and wanted_status == status and pattern.match(path):
            jsonschema.validate(body, schema)
            return name
    raise AssertionError(f"{method} {path} answered {status}: no endpoint of the reference covers it")


@override_settings(PROLIFIC_WEBHOOK_SECRET="contract-secret")
class ContractTests(BaseTestCase):
    def setUp(self):
        self.emulator = ProlificEmulator(seed=2).start()
        self.addCleanup(self.emulator.stop)
        self.session = RecordingSession()
        # No PROLIFIC_WORKSPACE: the provider finds the account's only workspace.
        self.provider = ProlificProvider(self.emulator.api_url, self.emulator.token, external_url="http://testserver",
                                         complete_url=f"{self.emulator.url}/submissions/complete", backoff=0,
                                         session=self.session)
        previous = use_provider("prolific", self.provider)
        self.addCleanup(use_provider, "prolific", previous)

    def take_part(self, batch, pid):
        participant = EmulatedParticipant(self.emulator.url, pid)
        session, url = participant.start(batch.provider_state["study_id"])
        client = Client()
        start = client.get(url.split("http://testserver", 1)[1])
        self.assertEqual(start.status_code, 302, start.content[:300])
        page = client.get(start.url).content.decode()
        done = client.post(start.url + "submit/", {name: "1" for name in
                                                   re.findall(r'name="(a-\d+-0)" value="1"', page)})
        # The participant goes back to Prolific's completion URL with the study's code.
        self.assertRegex(done.url, rf"^{re.escape(self.emulator.url)}/submissions/complete\?cc=[0-9A-F]{{8}}$")
        participant.complete(done.url)
        return Assignment.objects.get(provider_assignment_id=session)

    def test_every_answer_the_provider_gets_follows_the_reference(self):
        self.emulator.workspace.hook_secret = "contract-secret"
        for event in EVENTS:
            self.emulator.workspace.subscriptions[event] = {"event_type": event, "target_url": "http://127.0.0.1:9/",
                                                            "is_enabled": True}
        test = qualification_test_create(name="screen", path=released_sample())
        screening_study_create(test=test, provider=self.provider, places=5)
        batch = batch_publish(batch=make_batch(count=6, items_per_hit=2, provider="prolific", assignments_per_hit=2,
                                               reward="1.00"))
        good, other = self.take_part(batch, "PGOOD"), self.take_part(batch, "POTHER")
        # One who returns after submitting: Prolific refuses to approve it (a 400 in its error shape).
        gone = self.take_part(batch, "PGONE")
        self.emulator.workspace.participant_return("PGONE", batch.provider_state["study_id"])
        with self.assertRaisesRegex(CrowdError, "withdrawn by its worker"):
            assignment_approve(assignment=gone)
        assignment_approve(assignment=good)
        worker_bonus(worker=good.worker, assignment=good, amount="0.75", reason="careful")
        assignment_reject(assignment=other, feedback="x" * 120, category="FAILED_CHECK")
        batch_sync(batch=batch)
        self.provider.block(other.worker, "failed checks")
        self.provider.study_grow(batch.provider_state["study_id"], batch.places() + 2)
        self.assertIsNone(self.provider.submission("0" * 24))
        self.assertTrue(batch_reconcile(batch=batch).clean)
        batch_expire(batch=batch)

        covered = {check(method, path, status, body) for method, path, status, body in self.session.seen}
        expected = {path for _, path, _, _ in ENDPOINTS}
        self.assertEqual(expected - covered, set(), "endpoints the provider uses that this run never saw")
        with self.emulator.workspace.lock:  # what was sent and what waits to be sent
            events = ([d["event"] for d in self.emulator.delivered] + [p for _, p in self.emulator.workspace.outbox]
                      + [p for _, p in self.emulator.sending])
        self.assertTrue({event["event_type"] for event in events} >= set(EVENTS))
        for event in events:
            jsonschema.validate(event, EVENTS[event["event_type"]])  # no study id on a submission event

    def test_the_single_submission_names_its_participant_participant(self):
        batch = batch_publish(batch=make_batch(count=2, items_per_hit=2, provider="prolific", assignments_per_hit=1,
                                               reward="1.00"))
        assignment = self.take_part(batch, "PSHAPE")
        found = self.provider.submission(assignment.provider_assignment_id)
        self.assertEqual((found["participant"], "participant_id" in found), ("PSHAPE", False))
        listed = next(self.provider._pages(f"studies/{batch.provider_state['study_id']}/submissions/"))
        self.assertEqual((listed["participant_id"], "participant" in listed), ("PSHAPE", False))

    def test_a_group_without_a_workspace_is_a_400_and_the_provider_always_names_one(self):
        answer = requests.post(f"{self.emulator.api_url}participant-groups/", json={"name": "no workspace"},
                               headers={"Authorization": f"Token {self.emulator.token}"}, timeout=10)
        self.assertEqual(answer.status_code, 400)
        jsonschema.validate(answer.json(), ERROR)
        self.assertIn("workspace_id or organisation_id", answer.json()["error"]["detail"])
        group = self.provider.group_create("passers")
        self.assertEqual(self.emulator.workspace.groups[group]["workspace_id"], self.emulator.workspace.workspace_id)
        # An account with two workspaces and no PROLIFIC_WORKSPACE: a named error, nothing made.
        self.emulator.workspace.workspaces = lambda: [{"id": "a" * 24, "title": "Lab"}, {"id": "b" * 24,
                                                                                         "title": "Other"}]
        fresh = ProlificProvider(self.emulator.api_url, self.emulator.token, backoff=0)
        with self.assertRaisesRegex(ProviderError, r"set PROLIFIC_WORKSPACE .* this account has 2 \(a{24} \(Lab\)"):
            fresh.group_create("anything")
