"""Prolific end to end against the emulator: participants arrive from Prolific's study URL, take HITs
through the claim engine, submit and go back with the code; review, bonuses, time-outs, webhooks, forged
links, and the fault test (drops after the work and 429s on every call)."""

import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from emulators.prolific import ProlificEmulator, sign
from emulators.prolific.participant import EmulatedParticipant, ParticipantRefused
from emulators.prolific.server import ROUTES
from hits.models import Assignment, Payment, ProviderEvent, Worker
from hits.providers import use_provider
from hits.providers.base import ProviderError
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import (
    CrowdError,
    assignment_approve,
    assignment_reject,
    batch_publish,
    batch_sync,
    worker_bonus,
)
from qualification.models import Grant
from qualification.prolific import screening_study_create
from qualification.services import grants_revoke, qualification_test_create
from tests.base import BaseTestCase
from tests.fixtures import released_sample
from tests.hits.helpers import make_batch, take_screening

SECRET = "a-webhook-secret"


class Clock:
    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now


@override_settings(PROLIFIC_WEBHOOK_SECRET=SECRET)
class ProlificTestCase(BaseTestCase):
    def setUp(self):
        self.clock = Clock()
        self.emulator = ProlificEmulator(seed=5, clock=self.clock).start()
        self.addCleanup(self.emulator.stop)
        self.provider = ProlificProvider(self.emulator.api_url, self.emulator.token, external_url="http://testserver",
                                         complete_url=f"{self.emulator.url}/submissions/complete", backoff=0)
        previous = use_provider("prolific", self.provider)
        self.addCleanup(use_provider, "prolific", previous)

    def publish(self, count=10, items_per_hit=2, assignments_per_hit=5, reward="1.00"):
        return batch_publish(batch=make_batch(count=count, items_per_hit=items_per_hit, provider="prolific",
                                              assignments_per_hit=assignments_per_hit, reward=Decimal(reward)))

    def arrive(self, batch, pid, **attributes):
        """A participant takes a place at Prolific and opens the study URL here: (participant, client, response)."""
        participant = EmulatedParticipant(self.emulator.url, pid, **attributes)
        session, url = participant.start(batch.provider_state["study_id"])
        client = Client()
        return participant, session, client, client.get(url.split("http://testserver", 1)[1])

    def take_part(self, batch, pid, value="1"):
        participant, session, client, response = self.arrive(batch, pid)
        self.assertEqual(response.status_code, 302, response.content[:300])
        page = client.get(response.url)
        fields = {name: value for name in re.findall(r'name="(a-\d+-0)" value="1"', page.content.decode())}
        done = client.post(response.url + "submit/", fields)
        self.assertEqual(done.status_code, 302, done.content[:500])
        self.assertTrue(done.url.startswith(f"{self.emulator.url}/submissions/complete?cc="), done.url)
        participant.complete(done.url)
        return participant, session, client


class ParticipantTests(ProlificTestCase):
    def test_a_participant_does_a_hit_and_goes_back_to_prolific_with_the_code(self):
        batch = self.publish()
        study = self.emulator.workspace.studies[batch.provider_state["study_id"]]
        self.assertEqual(study["total_available_places"], 25)  # 5 HITs x 5 places
        self.assertEqual(study["reward"], 100)
        self.assertIn("participant_group_blocklist", [f["filter_id"] for f in study["filters"]])
        _, session, client = self.take_part(batch, "PPP1")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual((assignment.state, assignment.worker.external_id), ("submitted", "PPP1"))
        self.assertEqual(self.emulator.workspace.submissions[session].status, "AWAITING REVIEW")
        # Coming back by the same link: the page says it is done and links back to Prolific.
        again = client.get(f"/prolific/start/?PROLIFIC_PID=PPP1&STUDY_ID={batch.provider_state['study_id']}"
                           f"&SESSION_ID={session}", follow=True)
        self.assertContains(again, "You submitted this HIT")
        self.assertContains(again, "Back to Prolific")
        self.assertEqual(Assignment.objects.filter(worker=assignment.worker).count(), 1)

    def test_a_participant_who_comes_back_gets_the_hit_they_hold(self):
        batch = self.publish()
        _, session, client, first = self.arrive(batch, "PPP2")
        second = client.get(first.request["PATH_INFO"] + "?" + first.request["QUERY_STRING"])
        self.assertEqual(first.url, second.url)
        self.assertEqual(Assignment.objects.filter(provider_assignment_id=session).count(), 1)
        self.assertEqual(Assignment.objects.count(), 1)

    def test_forged_and_replayed_links_are_refused_and_store_nothing(self):
        batch = self.publish()
        study = batch.provider_state["study_id"]
        _, session, _, _ = self.arrive(batch, "AAAA")
        EmulatedParticipant(self.emulator.url, "BBBB")
        workers, assignments = Worker.objects.count(), Assignment.objects.count()
        cases = [
            (f"PROLIFIC_PID=BBBB&STUDY_ID={study}&SESSION_ID={session}", 403, "This link is not yours"),
            (f"PROLIFIC_PID=AAAA&STUDY_ID=0123456789abcdef01234567&SESSION_ID={session}", 404, "not one of ours"),
            (f"PROLIFIC_PID=BBBB&STUDY_ID={study}", 403, "lacks what Prolific adds"),
            (f"PROLIFIC_PID=BBBB&STUDY_ID={study}&SESSION_ID=0123456789abcdef01234567", 403, "not yours"),
            (f"STUDY_ID={study}", 403, "lacks what Prolific adds"),
        ]
        for query, status, message in cases:
            with self.subTest(query=query):
                response = Client().get(f"/prolific/start/?{query}")
                self.assertContains(response, message, status_code=status)
        self.assertEqual((Worker.objects.count(), Assignment.objects.count()), (workers, assignments))
        # Another participant's assignment page, with a session bound to someone else, is not found.
        other = Client()
        self.arrive(batch, "CCCC")[2]
        mine = Assignment.objects.get(provider_assignment_id=session)
        self.assertEqual(other.get(f"/work/assignments/{mine.pk}/").status_code, 302)  # not bound: to the login

    def test_the_pay_floor_is_checked_before_anything_is_made(self):
        with self.assertRaisesRegex(CrowdError, r"under Prolific's floor of 6.00 GBP .*raise the reward to at least"):
            self.publish(count=50, items_per_hit=25, reward="0.50")
        self.assertEqual(self.emulator.workspace.studies, {})

    def test_a_place_that_times_out_is_freed(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        _, session, _, _ = self.arrive(batch, "SLOW")
        self.clock.now += timedelta(hours=3)
        report = batch_sync(batch=batch)
        self.assertEqual(Assignment.objects.get(provider_assignment_id=session).state, "expired")
        self.assertGreaterEqual(report.expired_claims, 1)
        self.take_part(batch, "FAST")  # the place is free for the next participant


class ReviewAndMoneyTests(ProlificTestCase):
    def test_a_rejection_needs_a_category_and_100_characters(self):
        batch = self.publish()
        _, session, _ = self.take_part(batch, "REJ1", value="0")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        with self.assertRaisesRegex(ProviderError, "at least 100 characters"):
            assignment_reject(assignment=assignment, feedback="Too fast.", category="TOO_QUICKLY")
        message = ("You answered all sentences in under ten seconds and every known-answer check was wrong, so the "
                   "answers cannot be used.")
        with self.assertRaisesRegex(ProviderError, "rejection category"):
            assignment_reject(assignment=assignment, feedback=message)
        assignment_reject(assignment=assignment, feedback=message, category="FAILED_CHECK")
        self.assertEqual(self.emulator.workspace.submissions[session].status, "REJECTED")
        self.assertEqual(Assignment.objects.get(pk=assignment.pk).state, "rejected")

    def test_approval_pays_the_reward_and_a_lost_bonus_answer_never_pays_twice(self):
        batch = self.publish()
        _, session, _ = self.take_part(batch, "GOOD")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        assignment_approve(assignment=assignment)
        reward = Payment.objects.get(assignment=assignment, kind="reward")
        self.assertEqual((reward.state, reward.amount), ("confirmed", Decimal("1.00")))
        self.emulator.faults.next("bonus.pay", "drop")
        # The answer is lost after Prolific paid: the bonus is looked up, found paid, and confirmed; never sent again.
        bonus = worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
        self.assertEqual(bonus.state, "confirmed")
        again = worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
        self.assertEqual((again.pk, again.state), (bonus.pk, "confirmed"))
        self.assertEqual(self.emulator.workspace.submissions[session].bonus_payments, [40])
        self.assertEqual([b.paid for b in self.emulator.workspace.bonuses.values()], [1])
        self.assertTrue(batch_reconcile(batch=batch).clean)

    def test_a_bonus_paid_behind_our_back_is_reported(self):
        batch = self.publish()
        _, session, _ = self.take_part(batch, "SIDE")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        assignment_approve(assignment=assignment)
        found = self.provider._call("POST", "submissions/bonus-payments/", {
            "study_id": batch.provider_state["study_id"], "csv_bonuses": f"{session},0.25"})
        self.provider._call("POST", f"bulk-bonus-payments/{found['id']}/pay/", {})
        report = batch_reconcile(batch=batch)
        self.assertEqual([d["kind"] for d in report.differences], ["money differs"])
        self.assertIn("0.25", report.differences[0]["what"])


class WebhookTests(ProlificTestCase):
    def post(self, body, *, secret=SECRET, event_id="evt-1", timestamp=None):
        """POST as Prolific does; the Celery task the view queues on commit runs (eagerly here)."""
        timestamp = timestamp or str(int(timezone.now().timestamp()))
        with self.captureOnCommitCallbacks(execute=False) as queued:
            response = Client().post("/prolific/hooks/", data=body, content_type="application/json", headers={
                "X-Prolific-Request-Timestamp": timestamp,
                "X-Prolific-Request-Signature": sign(secret, timestamp, body.encode()), "X-Event-ID": event_id})
        # What the request itself queued (the sync's own callbacks come later, when the task runs).
        response.queued = len(queued)
        with self.captureOnCommitCallbacks(execute=True):
            for callback in queued:
                callback()
        return response

    def test_signed_events_sync_once_and_forged_ones_are_refused(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        _, session, _, _ = self.arrive(batch, "HOOK")
        self.emulator.workspace.participant_return("HOOK", batch.provider_state["study_id"])
        # As Prolific sends it: the submission id as resource_id, no study id.
        body = json.dumps({"event_type": "submission.status.change", "resource_id": session,
                           "participant_id": "HOOK", "status": "RETURNED"})
        with self.assertLogs("hits.prolific_views", "WARNING"):
            self.assertEqual(self.post(body, secret="not-the-secret").status_code, 403)
        self.assertEqual(Assignment.objects.get(provider_assignment_id=session).state, "claimed")
        answered = self.post(body)
        self.assertEqual((answered.status_code, answered.queued), (200, 1))  # a task, not a sync in the request
        self.assertEqual(Assignment.objects.get(provider_assignment_id=session).state, "expired")  # synced
        self.assertEqual(self.post(body).json(), {"ignored": "seen before"})  # replayed
        self.assertEqual(ProviderEvent.objects.count(), 1)
        stale = str(int((timezone.now() - timedelta(days=3)).timestamp()))
        self.assertEqual(self.post(body, event_id="evt-2", timestamp=stale).status_code, 403)

    def test_an_event_for_a_submission_not_bound_here_finds_its_study_at_prolific(self):
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        _, session, _, _ = self.arrive(batch, "EARLY")
        # The submission's place was taken at Prolific but the participant's link never bound it here.
        Assignment.objects.filter(provider_assignment_id=session).update(provider_assignment_id="")
        calls = dict(self.emulator.faults.calls)
        body = json.dumps({"event_type": "submission.status.change", "resource_id": session,
                           "participant_id": "EARLY", "status": "ACTIVE"})
        self.assertEqual(self.post(body, event_id="evt-9").status_code, 200)
        # The task looked the submission up at Prolific, then synced its study.
        now = self.emulator.faults.calls
        self.assertEqual(now.get("submissions.get", 0), calls.get("submissions.get", 0) + 1)
        self.assertGreater(now.get("submissions.list", 0), calls.get("submissions.list", 0))


class FaultTests(ProlificTestCase):
    @pytest.mark.slow  # a fault run of hundreds of HITs or a timer running out: CI runs it
    def test_200_participants_through_dropped_answers_and_429s(self):
        batch = self.publish(count=40, items_per_hit=1, assignments_per_hit=5)  # 40 HITs, 200 places
        self.emulator.faults.set({name: {"drop": 0.1, "throttle": 0.1} for _, _, name, _ in ROUTES})
        sessions = [self.take_part(batch, f"P{n:03d}")[1] for n in range(200)]
        for assignment in Assignment.objects.filter(hit__batch=batch, state="submitted")[:40]:
            assignment_approve(assignment=assignment)
        paid = list(Assignment.objects.filter(hit__batch=batch, state="approved")[:20])
        for assignment in paid:
            for _ in range(5):  # a lost answer is tried again, as an organizer would
                try:
                    worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.30", reason="gold right")
                    break
                except ProviderError:
                    continue
        batch_sync(batch=batch)
        counts = self.emulator.faults.counts
        self.emulator.faults.set({})
        self.assertGreater(counts["drop"], 10)
        self.assertGreater(counts["throttle"], 10)
        stored = Assignment.objects.filter(hit__batch=batch).exclude(provider_assignment_id="")
        self.assertEqual(sorted(stored.values_list("provider_assignment_id", flat=True)), sorted(sessions))
        self.assertEqual(stored.filter(state__in=["submitted", "approved"]).count(), 200)
        for hit in batch.hits.all():  # no place double-booked
            self.assertEqual(hit.assignments.exclude(state="expired").count(), 5)
        self.assertEqual(self.emulator.workspace.studies[batch.provider_state["study_id"]]["status"],
                         "AWAITING REVIEW")
        for assignment in paid:
            self.assertEqual(self.emulator.workspace.submissions[assignment.provider_assignment_id].bonus_payments,
                             [30])
        self.assertEqual(Payment.objects.filter(kind="bonus", state="confirmed").count(), 20)
        report = batch_reconcile(batch=batch)
        self.assertTrue(report.clean, report.differences)


class ScreeningTests(ProlificTestCase):
    """The 40-item test as a Prolific screening study: pass → participant group (and grant); batches that need
    the test are open to that group only; a revoked participant is blocked there and refused here."""

    def screen(self, participant, test, answers):
        return take_screening(participant, test, answers)

    def test_passers_join_the_group_and_only_they_take_the_batch(self):
        test = qualification_test_create(name="screen", path=released_sample())
        with self.assertRaisesRegex(CrowdError, "no Prolific screening study yet"):
            batch_publish(batch=make_batch(count=4, items_per_hit=2, provider="prolific", reward=Decimal("1.00"),
                                           requirements={"qualification": "screen"}, name="needs the test"))
        state = screening_study_create(test=test, provider=self.provider, places=10)
        test.refresh_from_db()
        good, poor = EmulatedParticipant(self.emulator.url, "GOOD"), EmulatedParticipant(self.emulator.url, "POOR")
        self.assertContains(self.screen(good, test, [True] * 40), "You passed")
        self.assertContains(self.screen(poor, test, [n % 2 == 0 for n in range(40)]), "Not passed")
        group = self.emulator.workspace.groups[state["group_id"]]["members"]
        self.assertEqual(group, {"GOOD"})
        self.assertTrue(Grant.objects.filter(worker__external_id="GOOD", revoked=None).exists())
        statuses = {s.participant_id: s.status for s in self.emulator.workspace.submissions.values()}
        self.assertEqual(statuses, {"GOOD": "APPROVED", "POOR": "APPROVED"})  # both paid for their time

        batch = batch_publish(batch=make_batch(count=4, items_per_hit=2, provider="prolific", reward=Decimal("1.00"),
                                               requirements={"qualification": "screen"}, name="needs the test"))
        with self.assertRaisesRegex(Exception, "not in the allowed participant group"):
            poor.start(batch.provider_state["study_id"])
        self.take_part(batch, "GOOD")
        grants_revoke(worker=Worker.objects.get(external_id="GOOD"), reason="failed the gold checks")
        other = make_batch(count=2, items_per_hit=2, provider="prolific", reward=Decimal("1.00"), name="later")
        batch_publish(batch=other)
        with self.assertRaisesRegex(Exception, "blocked participant group"):
            good.start(other.provider_state["study_id"])


class FilterTests(ProlificTestCase):
    def test_a_batch_asking_for_more_approvals_keeps_out_a_participant_with_fewer(self):
        batch = batch_publish(batch=make_batch(count=2, items_per_hit=2, provider="prolific", assignments_per_hit=2,
                                               requirements={"min_approval_rate": 99, "min_approved_hits": 1000}))
        study = self.emulator.workspace.studies[batch.provider_state["study_id"]]
        ranges = {rule["filter_id"]: rule.get("selected_range") for rule in study["filters"]}
        self.assertEqual((ranges["approval_rate"]["lower"], ranges["approval_numbers"]["lower"]), (99, 1000))
        with self.assertRaisesRegex(ParticipantRefused, "500 approvals, fewer than 1000"):
            self.arrive(batch, "PFEW", approvals=500)
        with self.assertRaisesRegex(ParticipantRefused, "approval rate 98"):
            self.arrive(batch, "PRATE", approvals=5000, approval_rate=98)
        _, _, _, response = self.arrive(batch, "PMANY", approvals=5000)
        self.assertEqual(response.status_code, 302)
