"""Crowd money and sync against the MTurk emulator (real boto3, nothing patched): never pay twice, never
miss a submission, and reconcile every cent with the provider."""

from decimal import Decimal
from io import StringIO

from django.core.management import CommandError, call_command
from django.utils import timezone

from designs.semeval import spans_batch_create
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker
from hits.models import Assignment, Batch, Hit, Payment
from hits.providers import use_provider
from hits.providers.base import ProviderError
from hits.providers.mturk import MTurkProvider
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
from projects.models import Project
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch, spec

DAY = 24 * 3600


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


class MoneyTestCase(BaseTestCase):
    def setUp(self):
        self.clock = Clock()
        self.emulator = MTurkEmulator(seed=3, clock=self.clock).start()
        self.addCleanup(self.emulator.stop)
        self.use(self.emulator.client(backoff=False))

    def use(self, client):
        self.provider = MTurkProvider(client)
        previous = use_provider("mturk", self.provider)
        self.addCleanup(use_provider, "mturk", previous)

    def work(self, batch, worker_id="AWORKER1"):
        worker = EmulatedWorker(self.emulator.url, worker_id)
        hit = batch.hits.first()
        assignment_id = worker.accept(hit.provider_hit_id)
        worker.submit(assignment_id, {f"a-{item.pk}-0": "1" for item in hit.ordered_items()})
        batch_sync(batch=batch)
        return Assignment.objects.get(provider_assignment_id=assignment_id)

    def assert_reconciles(self, batch):
        report = batch_reconcile(batch=batch)
        self.assertTrue(report.clean, report.differences)


class BonusTests(MoneyTestCase):
    def setUp(self):
        super().setUp()
        self.batch = batch_publish(batch=make_batch(count=5, provider="mturk", assignments_per_hit=2))
        self.assignment = self.work(self.batch)
        assignment_approve(assignment=self.assignment)

    def test_the_first_answer_of_send_bonus_lost_pays_once(self):
        # botocore retries the dropped call with the same token; MTurk says the token was used; we look it up.
        self.use(self.emulator.client(backoff=False))
        self.emulator.faults.next("SendBonus", "drop")
        payment = worker_bonus(worker=self.assignment.worker, assignment=self.assignment, amount="1.00",
                               reason="careful work")
        self.assertEqual(len(self.emulator.account.bonuses), 1)
        self.assertEqual(payment.state, "confirmed")
        self.assertEqual(Payment.objects.filter(kind="bonus").count(), 1)
        fee = Payment.objects.get(fee_of=payment)
        self.assertEqual((fee.amount, fee.state), (Decimal("0.20"), "confirmed"))
        self.assert_reconciles(self.batch)

    def test_a_bonus_retried_after_25_hours_pays_once(self):
        # No retries this time: the one call's answer is lost, the payment stays intended.
        self.use(self.emulator.client(backoff=False, retries={"mode": "standard", "total_max_attempts": 1}))
        self.emulator.faults.next("SendBonus", "drop")
        with self.assertRaisesRegex(ProviderError, "SendBonus"):
            worker_bonus(worker=self.assignment.worker, assignment=self.assignment, amount="1.00",
                         reason="careful work")
        payment = Payment.objects.get(kind="bonus")
        self.assertEqual((payment.state, payment.attempts), ("intended", 1))
        self.assertEqual(len(self.emulator.account.bonuses), 1)  # it was paid all the same
        report = batch_reconcile(batch=self.batch)
        self.assertEqual([d["kind"] for d in report.differences], ["money differs"])
        self.clock.now += 25 * 3600  # MTurk has forgotten the token by now: sending it again would pay again
        payment = worker_bonus(worker=self.assignment.worker, assignment=self.assignment, amount="1.00",
                               reason="careful work")
        self.assertEqual(payment.state, "confirmed")
        self.assertEqual(len(self.emulator.account.bonuses), 1)
        self.assert_reconciles(self.batch)

    def test_the_balance_pays_the_fees(self):
        before = self.emulator.account.balance
        worker_bonus(worker=self.assignment.worker, assignment=self.assignment, amount="1.00", reason="extra")
        self.assertEqual(before - self.emulator.account.balance, Decimal("1.20"))
        self.assertEqual(self.batch.spent(), Decimal("0.60") + Decimal("1.20"))  # reward 0.50 + 20%, bonus + 20%


class SyncUntilFinalTests(MoneyTestCase):
    def test_work_taken_before_expiry_and_submitted_after_it_is_pulled_and_reviewed(self):
        batch = batch_publish(batch=make_batch(count=5, provider="mturk", assignments_per_hit=2,
                                               lifetime=3600))
        hit = batch.hits.get()
        late = EmulatedWorker(self.emulator.url, "ALATE")
        assignment_id = late.accept(hit.provider_hit_id)
        batch_expire(batch=batch)
        self.clock.now += 600
        late.submit(assignment_id, {f"a-{item.pk}-0": "0" for item in hit.ordered_items()})
        report = batch_sync(batch=batch)
        self.assertEqual(report.new, 1)
        stored = Assignment.objects.get(provider_assignment_id=assignment_id)
        self.assertEqual((stored.state, batch.state), ("submitted", "expired"))
        self.assertFalse(Batch.objects.get(pk=batch.pk).final)  # reviewed later, still syncing
        assignment_approve(assignment=stored)
        batch_sync(batch=batch)
        batch.refresh_from_db()
        self.assertTrue(batch.final)
        self.assertTrue(self.emulator.account.hits[hit.provider_hit_id].get("Disposed"))
        self.assert_reconciles(batch)
        self.assertEqual(batch_sync(batch=batch).hits, 0)  # a final batch is not asked about any more

    def test_a_late_automatic_approval_is_recorded_and_a_review_after_it_says_so(self):
        batch = batch_publish(batch=make_batch(count=5, provider="mturk", assignments_per_hit=1))
        assignment = self.work(batch)
        self.clock.now += 4 * DAY  # past the 3-day auto-approval delay
        approved = assignment_approve(assignment=assignment, feedback="thanks")
        self.assertEqual((approved.state, approved.review_note), ("approved", "already approved at mturk"))
        self.assertEqual(Payment.objects.get(kind="reward").state, "confirmed")
        other = make_batch(count=5, provider="mturk", assignments_per_hit=1, name="second")
        second = self.work(batch_publish(batch=other), worker_id="AWORKER2")
        self.clock.now += 4 * DAY
        with self.assertRaisesRegex(CrowdError, "was already approved at mturk .* cannot be rejected now"):
            assignment_reject(assignment=second, feedback="no")
        batch_sync(batch=batch)
        self.assert_reconciles(batch)

    def test_the_sync_records_automatic_approvals_in_the_ledger(self):
        batch = batch_publish(batch=make_batch(count=5, provider="mturk", assignments_per_hit=1))
        assignment = self.work(batch)
        self.clock.now += 4 * DAY
        self.assertEqual(batch_sync(batch=batch).updated, 1)
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "approved")
        self.assertEqual(batch.spent(), Decimal("0.60"))
        self.assert_reconciles(batch)

    def test_an_unreadable_submission_is_flagged_and_the_rest_syncs(self):
        batch = batch_publish(batch=make_batch(count=10, items_per_hit=5, provider="mturk", assignments_per_hit=1))
        first, second = batch.hits.order_by("index")
        worker = EmulatedWorker(self.emulator.url, "ABAD")
        bad = worker.accept(first.provider_hit_id)
        worker.submit(bad, {f"a-{item.pk}-0": "1\x01" for item in first.ordered_items()})
        good = EmulatedWorker(self.emulator.url, "AGOOD")
        fine = good.accept(second.provider_hit_id)
        good.submit(fine, {f"a-{item.pk}-0": "0" for item in second.ordered_items()})
        report = batch_sync(batch=batch)
        self.assertEqual((report.new, report.flagged), (1, 1))
        flagged = Assignment.objects.get(provider_assignment_id=bad)
        self.assertIn("could not be read", flagged.flag)
        self.assertIn("_unreadable", flagged.raw_answers)
        self.assertEqual(Assignment.objects.get(provider_assignment_id=fine).answers is not None, True)

    def test_two_syncs_of_one_batch_at_once_both_finish(self):
        batch = batch_publish(batch=make_batch(count=5, provider="mturk", assignments_per_hit=1))
        Batch.objects.filter(pk=batch.pk).update(sync_lease=timezone.now())  # another sync holds it
        report = batch_sync(batch=batch)
        self.assertEqual(report.skipped, f"another sync of batch {batch.pk} is running")


class TokenTests(MoneyTestCase):
    def test_a_database_reset_never_reuses_a_hit_of_the_same_account(self):
        first = batch_publish(batch=make_batch(count=5, provider="mturk"))
        old = set(first.hits.values_list("provider_hit_id", flat=True))
        # The database is emptied (a reset, a restore): ids start over at 1 on the same MTurk account.
        Hit.objects.all().delete()
        Batch.objects.all().delete()
        again = batch_publish(batch=make_batch(count=5, provider="mturk"))
        new = set(again.hits.values_list("provider_hit_id", flat=True))
        self.assertEqual(len(self.emulator.account.hits), 2)
        self.assertFalse(old & new)

    def test_a_publish_resumed_after_a_lost_answer_finds_its_hit_instead_of_making_another(self):
        batch = make_batch(count=10, items_per_hit=5, provider="mturk")
        self.use(self.emulator.client(backoff=False, retries={"mode": "standard", "total_max_attempts": 1}))
        self.emulator.faults.next("CreateHITWithHITType", "drop")
        with self.assertRaisesRegex(ProviderError, "0 of 2 HITs published; publish again"):
            batch_publish(batch=batch)
        self.clock.now += 2 * DAY  # past MTurk's 24-hour token memory
        batch_publish(batch=batch)
        self.assertEqual(len(self.emulator.account.hits), 2)
        self.assertEqual(set(batch.hits.values_list("provider_hit_id", flat=True)), set(self.emulator.account.hits))
        self.assert_reconciles(batch)


class SizeTests(MoneyTestCase):
    def test_a_span_batch_of_the_longest_sentences_is_refused_before_anything_is_published(self):
        long = "If the board had not " + "postponed the vote again and again, " * 40 + "it would have passed."
        batch = spans_batch_create(name="spans", provider="mturk", items_per_hit=40, assignments_per_hit=1,
                                   items=[spec(f"s{n}", f"{long} ({n})") for n in range(40)])
        with self.assertRaisesRegex(CrowdError, r"HIT 1: its question is [\d,]+ bytes, over MTurk's 65,535; make a "
                                                r"new batch with fewer items per HIT \(now 40\), or publish with "
                                                r"MTURK_QUESTION=external"):
            batch_publish(batch=batch)
        batch.refresh_from_db()
        self.assertEqual((batch.state, self.emulator.account.hits), ("draft", {}))


class ReconcileTests(MoneyTestCase):
    def test_reconcile_names_each_kind_of_difference_and_repairs_what_is_safe(self):
        batch = batch_publish(batch=make_batch(count=10, items_per_hit=5, provider="mturk", assignments_per_hit=2))
        second = batch.hits.order_by("index")[1]
        stored = self.work(batch)
        # Planted: a submission never pulled, a review made behind our back, a bonus paid behind our back,
        # and a HIT we think exists that the provider no longer has.
        late = EmulatedWorker(self.emulator.url, "ALATE")
        missing = late.accept(second.provider_hit_id)
        late.submit(missing, {f"a-{item.pk}-0": "1" for item in second.ordered_items()})
        self.provider.client.approve_assignment(AssignmentId=stored.provider_assignment_id)
        self.provider.client.send_bonus(WorkerId="AWORKER1", BonusAmount="0.30", Reason="behind our back",
                                        AssignmentId=stored.provider_assignment_id)
        ghost = Hit.objects.create(batch=batch, index=9, provider_hit_id="3GHOSTHITGHOSTHITGHOSTHITGHOST",
                                   state="published")
        out = StringIO()
        with self.assertRaisesRegex(CommandError, "differences between the providers and our records"):
            call_command("hits", "reconcile", str(batch.pk), stdout=out)
        kinds = {line.split(":")[0].strip() for line in out.getvalue().splitlines()[1:]}
        self.assertEqual(kinds, {"missing locally", "state differs", "money differs", "missing at the provider"})
        self.assertIn("0.30", out.getvalue())
        # The organizer sees it on the batch page too.
        project = Project.objects.create(slug="money", name="Money")
        project.batches.add(batch)
        self.login(self.organizer)
        page = self.client.get(f"/projects/money/batches/{batch.pk}/")
        self.assertContains(page, "4 differences")
        with self.assertRaises(CommandError):
            call_command("hits", "reconcile", "--all", "--repair", stdout=StringIO())
        self.assertTrue(Assignment.objects.filter(provider_assignment_id=missing).exists())
        self.assertEqual(Assignment.objects.get(pk=stored.pk).state, "approved")
        self.assertTrue(Payment.objects.filter(kind="bonus", amount=Decimal("0.30"), state="confirmed").exists())
        ghost.refresh_from_db()
        self.assertTrue(ghost.final)
        out = StringIO()
        call_command("hits", "reconcile", "--all", stdout=out)
        self.assertIn(f"batch {batch.pk} (mturk): clean", out.getvalue())
        self.assertEqual(Batch.objects.get(pk=batch.pk).reconcile_report["differences"], [])
        page = self.client.get(f"/projects/money/batches/{batch.pk}/")
        self.assertContains(page, "every HIT, assignment and payment agrees")

    def test_reconcile_is_clean_after_publishing_through_drops_and_throttling(self):
        batch = make_batch(count=200, items_per_hit=1, provider="mturk", assignments_per_hit=1)
        self.emulator.faults.set({"CreateHITWithHITType": {"drop": 0.1, "throttle": 0.1}})
        batch_publish(batch=batch)
        self.emulator.faults.set({})
        self.assertEqual(len(self.emulator.account.hits), 200)
        self.assert_reconciles(batch)


