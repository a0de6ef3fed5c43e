"""A lost answer never does the work twice, on any provider.

Each emulator's "work done, answer lost" faults (a 502 or 504 from a gateway, a timeout, a reset connection:
emulators.faults) on every call each provider makes that is not idempotent: the study, the participant group,
the bonus set and its payment at Prolific; the HIT, the bonus and the qualification type at MTurk. Each is made or
paid exactly once, on the database the run uses (SQLite on the embedded defaults, PostgreSQL in CI's second
pass). A 429 says the call was not done: it is sent again after Retry-After."""

from decimal import Decimal

from django.test import override_settings

from emulators.faults import AFTER
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker
from hits.models import Assignment, Payment
from hits.providers import use_provider
from hits.providers.base import ProviderError
from hits.providers.mturk import MTurkProvider
from hits.providers.prolific import ProlificProvider
from hits.reconcile import batch_reconcile
from hits.services import assignment_approve, batch_publish, batch_sync, worker_bonus
from qualification import mturk as qualification_mturk
from qualification.services import qualification_test_create
from tests.base import BaseTestCase
from tests.fixtures import released_sample
from tests.hits.helpers import make_batch
from tests.hits.test_prolific import ProlificTestCase

# The client gives up on an answer after this long; the emulator's `timeout` fault keeps it waiting longer.
CLIENT_TIMEOUT = 0.4


class LostProlificAnswers(ProlificTestCase):
    def setUp(self):
        super().setUp()
        self.emulator.faults.timeout_seconds = CLIENT_TIMEOUT * 2.5
        self.provider.timeout = CLIENT_TIMEOUT

    def test_a_study_is_made_once_whatever_loses_the_answer(self):
        for fault in AFTER:
            with self.subTest(fault=fault):
                self.emulator.faults.next("studies.create", fault)
                batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
                key = batch.provider_state["study_key"]
                named = [s for s in self.emulator.workspace.studies.values() if s["internal_name"] == key]
                self.assertEqual(len(named), 1)
                self.assertEqual(named[0]["id"], batch.provider_state["study_id"])
                self.assertIn(named[0]["status"], ("PUBLISHING", "ACTIVE"))  # published once
        self.assertEqual(self.emulator.faults.done["studies.create"], len(AFTER))

    def test_several_studies_with_one_internal_name_are_reported_not_guessed(self):
        batch = make_batch(count=2, items_per_hit=2, provider="prolific", assignments_per_hit=1,
                           reward=Decimal("1.00"))
        batch.provider_state = {"study_key": "crowdset-batch-twice", "completion_code": "ABCD1234"}
        batch.save(update_fields=["provider_state"])
        body = {"name": "x", "internal_name": "crowdset-batch-twice", "description": "x", "reward": 100,
                "external_study_url": self.provider.study_url("/prolific/start/"), "total_available_places": 1,
                "estimated_completion_time": 1, "completion_codes": [{"code": "ABCD1234", "code_type": "COMPLETED"}]}
        first = self.provider._call("POST", "studies/", body)
        second = self.provider._call("POST", "studies/", body)
        with self.assertRaisesRegex(Exception, rf"Prolific has 2 studies named 'crowdset-batch-twice' "
                                               rf"\({first['id']} \(UNPUBLISHED\), {second['id']} \(UNPUBLISHED\)\)"):
            batch_publish(batch=batch)
        self.assertEqual(len(self.emulator.workspace.studies), 2)  # nothing more made

    def test_a_participant_group_is_made_once(self):
        for fault in AFTER:
            with self.subTest(fault=fault):
                self.emulator.faults.next("groups.create", fault)
                self.provider.group_create(f"passers {fault}")
                self.assertEqual(sum(1 for g in self.emulator.workspace.groups.values()
                                     if g["name"] == f"passers {fault}"), 1)

    def test_a_bonus_is_paid_once_when_the_answer_to_making_or_paying_its_set_is_lost(self):
        batch = self.publish(count=len(AFTER) * 4, items_per_hit=1, assignments_per_hit=1)
        work = []
        for number in range(len(AFTER) * 2):
            _, session, _ = self.take_part(batch, f"PAID{number}")
            assignment = Assignment.objects.get(provider_assignment_id=session)
            assignment_approve(assignment=assignment)
            work.append(assignment)
        cases = [(operation, fault) for operation in ("bonus.create", "bonus.pay") for fault in AFTER]
        for assignment, (operation, fault) in zip(work, cases, strict=True):
            with self.subTest(operation=operation, fault=fault):
                self.emulator.faults.next(operation, fault)
                payment = worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40",
                                       reason="careful work")
                self.assertEqual(payment.state, "confirmed")
                submission = self.emulator.workspace.submissions[assignment.provider_assignment_id]
                self.assertEqual(submission.bonus_payments, [40])
                # Asked again: looked up, nothing sent.
                worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
                self.assertEqual(submission.bonus_payments, [40])
        self.assertEqual(Payment.objects.filter(kind="bonus", state="confirmed").count(), len(cases))
        self.assertEqual(sum(bonus.paid for bonus in self.emulator.workspace.bonuses.values()), len(cases))
        self.assertTrue(batch_reconcile(batch=batch).clean)

    @override_settings(PAYMENT_SETTLE_SECONDS=3600)
    def test_a_payment_whose_answer_is_lost_and_not_listed_yet_waits_before_it_is_sent_again(self):
        """Prolific pays a bonus set asynchronously: a payment whose answer was lost and that it does not list yet
        is in doubt, and is not sent again until Prolific has had time to list it."""
        batch = self.publish(count=2, items_per_hit=1, assignments_per_hit=1)
        _, session, _ = self.take_part(batch, "PDOUBT")
        assignment = Assignment.objects.get(provider_assignment_id=session)
        assignment_approve(assignment=assignment)
        # Lost before the work: nothing paid, and nothing listed (as a slow, asynchronous payment looks at first).
        self.emulator.faults.next("bonus.pay", "error")
        with self.assertRaisesRegex(ProviderError, "does not list it as paid"):
            worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
        payment = Payment.objects.get(kind="bonus")
        self.assertIsNotNone(payment.in_doubt_since)
        with self.assertRaisesRegex(Exception, "does not list the payment yet; it is looked up again"):
            worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40", reason="careful work")
        self.assertEqual(self.emulator.workspace.submissions[session].bonus_payments, [])
        with self.settings(PAYMENT_SETTLE_SECONDS=0):  # time enough: looked up, not there, paid
            self.assertEqual(worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.40",
                                          reason="careful work").state, "confirmed")
        self.assertEqual(self.emulator.workspace.submissions[session].bonus_payments, [40])

    def test_a_429_is_sent_again_after_retry_after_and_nothing_is_done_twice(self):
        waits = []

        class Recording(ProlificProvider):
            def _wait(self, attempt, retry_after, deadline, what):
                waits.append(retry_after)
                super()._wait(attempt, "0", deadline, what)

        provider = Recording(self.emulator.api_url, self.emulator.token, external_url="http://testserver",
                             complete_url=f"{self.emulator.url}/submissions/complete", backoff=0)
        use_provider("prolific", provider)
        self.emulator.faults.retry_after = "7"
        self.emulator.faults.next("studies.create", "throttle", 2)
        batch = self.publish(count=2, items_per_hit=2, assignments_per_hit=1)
        self.assertEqual(waits, ["7", "7"])
        self.assertEqual(self.emulator.faults.done["studies.create"], 1)
        self.assertEqual(len(self.emulator.workspace.studies), 1)
        self.assertTrue(batch.provider_state["study_id"])


class LostMTurkAnswers(BaseTestCase):
    def setUp(self):
        self.emulator = MTurkEmulator(seed=3, timeout_seconds=CLIENT_TIMEOUT * 2.5).start()
        self.addCleanup(self.emulator.stop)
        self.provider = MTurkProvider(self.emulator.client(backoff=False, read_timeout=CLIENT_TIMEOUT,
                                                           connect_timeout=CLIENT_TIMEOUT))
        previous = use_provider("mturk", self.provider)
        self.addCleanup(use_provider, "mturk", previous)

    def test_each_hit_is_made_once_whatever_loses_the_answer(self):
        batch = make_batch(count=len(AFTER), items_per_hit=1, provider="mturk", assignments_per_hit=1)
        for fault in AFTER:
            self.emulator.faults.next("CreateHITWithHITType", fault)
        batch_publish(batch=batch)
        self.assertEqual(len(self.emulator.account.hits), len(AFTER))
        self.assertEqual(sorted(self.emulator.account.hits), sorted(batch.hits.values_list("provider_hit_id",
                                                                                           flat=True)))
        self.assertEqual(self.emulator.faults.counts["drop"] + self.emulator.faults.counts["502"]
                         + self.emulator.faults.counts["504"] + self.emulator.faults.counts["timeout"], len(AFTER))

    def test_a_bonus_is_paid_once_whatever_loses_the_answer(self):
        batch = batch_publish(batch=make_batch(count=len(AFTER), items_per_hit=1, provider="mturk",
                                               assignments_per_hit=1))
        for number, hit in enumerate(batch.hits.all()):
            worker = EmulatedWorker(self.emulator.url, f"ALOST{number}")
            assignment_id = worker.accept(hit.provider_hit_id)
            worker.submit(assignment_id, {f"a-{item.id}-0": "1" for item in hit.ordered_items()})
        batch_sync(batch=batch)
        for assignment, fault in zip(Assignment.objects.filter(hit__batch=batch).order_by("pk"), AFTER, strict=True):
            with self.subTest(fault=fault):
                assignment_approve(assignment=assignment)
                self.emulator.faults.next("SendBonus", fault)
                try:
                    worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.30", reason="gold right")
                except ProviderError:
                    # botocore gave up on a lost answer: the next attempt looks the bonus up before anything else.
                    worker_bonus(worker=assignment.worker, assignment=assignment, amount="0.30", reason="gold right")
                paid = self.emulator.client(backoff=False).list_bonus_payments(
                    AssignmentId=assignment.provider_assignment_id)["BonusPayments"]
                self.assertEqual([bonus["BonusAmount"] for bonus in paid], ["0.30"])
        self.assertEqual(Payment.objects.filter(kind="bonus", state="confirmed").count(), len(AFTER))
        self.assertTrue(batch_reconcile(batch=batch).clean)

    def test_a_qualification_type_is_made_once_whatever_loses_the_answer(self):
        for fault in AFTER:
            with self.subTest(fault=fault):
                test = qualification_test_create(name=f"screen-{fault}", path=released_sample())
                self.emulator.faults.next("CreateQualificationType", fault)
                type_id = qualification_mturk.qualification_type_create(test=test, provider=self.provider)
                named = [q for q in self.emulator.account.qualification_types.values()
                         if q["QualificationTypeId"] == type_id]
                self.assertEqual(len(named), 1)
                self.assertEqual(sum(1 for q in self.emulator.account.qualification_types.values()
                                     if q["Name"] == named[0]["Name"]), 1)
