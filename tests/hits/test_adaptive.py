"""Adaptive redundancy live: settled sentences stop taking votes, their HIT is retired, the sentences still
open are re-packed for workers who have not seen them, and the batch reports what it saved."""

from decimal import Decimal

from aggregation.maths import DISCARDED, POSITIVE
from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create, spans_batch_create
from hits.models import Assignment, Batch, Hit, Worker
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish, batch_sync
from hits.services.adaptive import adaptive_savings, batch_adapt
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import spec
from tests.hits.test_mturk import MTurkTestCase


class AdaptiveTest(BaseTestCase):
    def setUp(self):
        items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(8)]
        self.batch = batch_publish(batch=labeling_batch_create(name="adaptive", items=items,
                                                      items_per_hit=4, assignments_per_hit=5, adaptive="outcomes",
                                                      reward=Decimal("0.40")))
        self.first, self.second = self.batch.hits.order_by("index")
        self.split = sorted(self.first.items.values_list("pk", flat=True))[:3]  # will get 2 yes and 1 no

    def work(self, name, no=()):
        worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=name)
        assignment = assignment_claim(batch=self.batch, worker=worker)
        if assignment is None:
            return None
        answers = {f"a-{item.pk}-0": "0" if item.pk in no else "1" for item in assignment.hit.ordered_items()}
        assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
        return assignment.hit

    def test_settled_sentences_stop_taking_votes_and_the_rest_are_re_packed(self):
        self.assertEqual([self.work("w1"), self.work("w2")], [self.first, self.first])
        self.assertEqual(self.work("w3", no=self.split), self.first)
        # Three of the first HIT's four sentences have 2 yes and 1 no: discarded whatever comes. The HIT is
        # retired with its 3 places taken; its fourth sentence waits for a full HIT or the batch's end.
        self.first.refresh_from_db()
        self.assertEqual((self.first.places, self.first.state), (3, Hit.State.COMPLETED))
        self.assertEqual(self.batch.hits.count(), 2)
        for name in ("w4", "w5", "w6", "w7", "w8"):
            self.assertEqual(self.work(name), self.second)
        # Nothing else has a free place: the open sentence gets a HIT of the 2 votes it still needs, which
        # nobody who voted on it may take.
        repacked = self.batch.hits.get(index=2)
        self.assertEqual((repacked.places, repacked.state), (2, Hit.State.PUBLISHED))
        (open_item,) = repacked.items.all()
        self.assertEqual(set(open_item.excluded_workers.values_list("external_id", flat=True)), {"w1", "w2", "w3"})
        self.assertIsNone(self.work("w1"))
        self.assertEqual([self.work("w4"), self.work("w5")], [repacked, repacked])
        self.assertIsNone(self.work("w6"))
        self.batch.refresh_from_db()
        self.assertEqual(self.batch.state, Batch.State.COMPLETED)
        saved = adaptive_savings(self.batch)
        # 3 settled sentences × 2 votes not bought; 2 places withdrawn and 2 added: the same money here.
        self.assertEqual((saved["saved_votes"], saved["withdrawn"], saved["added"]), (6, 2, 2))
        self.assertEqual((saved["retired"], saved["repacked"], saved["saved_money"]), (1, 1, Decimal("0.00")))
        run = batch_aggregate(batch=self.batch, samples=0)
        outcomes = dict(run.outcomes.values_list("item_id", "outcome"))
        self.assertEqual({outcomes[pk] for pk in self.split}, {DISCARDED})
        self.assertEqual(outcomes[open_item.pk], POSITIVE)
        self.assertEqual(list(run.outcomes.filter(outcome="pending")), [])
        self.assertIn("adaptive", run.rules_text)
        project = project_create(name="Adaptive", user=self.organizer)
        project.batches.add(self.batch)
        self.login(self.organizer)
        page = self.client.get(f"/projects/{project.slug}/batches/{self.batch.pk}/")
        self.assertContains(page, "6 of 40 sentence votes not bought (3 sentences settled early)")
        self.assertContains(page, "0 places saved (2 withdrawn from 1 retired HIT, 2 in 1 re-packed), 0.00 saved")
        found = self.client.get(f"/api/batches/{self.batch.pk}/").json()
        self.assertEqual((found["adaptive"], found["adaptive_savings"]["saved_votes"]), ("outcomes", 6))
        self.assertContains(self.client.get("/dashboard/"), "adaptive (outcomes): 6 of 40 votes and 0.00 saved")

    def test_re_packed_hits_over_the_budget_wait_and_are_published_once_it_is_raised(self):
        for name, no in (("w1", ()), ("w2", ()), ("w3", self.split), ("w4", ()), ("w5", ()), ("w6", ()),
                         ("w7", ())):
            self.work(name, no=no)
        # 3 + 5 + 2 places at 0.40 cost 4.00: a budget lowered to 3.00 refuses the re-packed HIT.
        Batch.objects.filter(pk=self.batch.pk).update(budget=Decimal("3.00"))
        self.work("w8")
        repacked = self.batch.hits.get(index=2)
        self.assertEqual(repacked.state, Hit.State.PENDING)
        self.batch.refresh_from_db()
        self.assertIn(f"publishing batch {self.batch.pk} for 4.00 (with provider fees) would take batch "
                      f"{self.batch.pk} to 4.00, over its budget of 3.00", adaptive_savings(self.batch)["note"])
        self.assertIsNone(self.work("w9"))
        Batch.objects.filter(pk=self.batch.pk).update(budget=Decimal("4.00"))
        batch_adapt(batch=self.batch)
        repacked.refresh_from_db()
        self.assertEqual(repacked.state, Hit.State.PUBLISHED)
        self.batch.refresh_from_db()
        self.assertEqual(adaptive_savings(self.batch)["note"], "")
        self.assertEqual(self.work("w9"), repacked)

    def test_a_full_hit_of_open_sentences_is_re_packed_at_once_and_saves_money(self):
        items = [spec(f"t{n}", f"Sentence {n}.", group="finance") for n in range(12)]
        batch = batch_publish(batch=labeling_batch_create(name="bigger", items=items, items_per_hit=2,
                                                 assignments_per_hit=5, adaptive="outcomes", reward=Decimal("0.40")))
        self.batch = batch
        hits = list(batch.hits.order_by("index"))
        # In each of the first two HITs one sentence settles (2 yes, 1 no) after three votes: both retire, and
        # their two open sentences (same voters) fill one re-packed HIT of 2 votes.
        for name, no in (("a", ()), ("b", ()), ("c", None)):
            for hit in hits[:2]:
                settling = min(hit.items.values_list("pk", flat=True))
                worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=name)
                assignment = assignment_claim(batch=batch, worker=worker)
                self.assertEqual(assignment.hit, hit)
                answers = {f"a-{item.pk}-0": "0" if no is None and item.pk == settling else "1"
                           for item in hit.ordered_items()}
                assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
        repacked = batch.hits.get(index=len(hits))
        self.assertEqual((repacked.places, repacked.items.count()), (2, 2))
        batch.refresh_from_db()
        saved = adaptive_savings(batch)
        self.assertEqual((saved["withdrawn"], saved["added"], saved["saved_places"]), (4, 2, 2))
        self.assertEqual(saved["saved_money"], Decimal("0.80"))  # in-house: no fee

    def test_when_only_positives_matter_one_no_settles_a_sentence(self):
        items = [spec(f"p{n}", f"Sentence {n}.", group="finance") for n in range(12)]
        self.batch = batch_publish(batch=labeling_batch_create(name="positives", items=items,
                                                      items_per_hit=4, assignments_per_hit=5, adaptive="positives",
                                                      reward=Decimal("0.40")))
        hits = list(self.batch.hits.order_by("index"))
        first, third = (sorted(hit.items.values_list("pk", flat=True)) for hit in (hits[0], hits[2]))
        keep = {first[0], *third[:2]}
        no = set(self.batch.items.values_list("pk", flat=True)) - keep
        # One worker each: every "no" settles its sentence, and each HIT retires after its first vote.
        self.assertEqual([self.work(name, no=no) for name in ("w1", "w2", "w3")], hits)
        repacked = self.batch.hits.get(index=3)
        self.assertEqual((repacked.places, set(repacked.items.values_list("pk", flat=True))), (4, keep))
        for name in ("w4", "w5", "w6", "w7"):
            self.assertEqual(self.work(name), repacked)
        self.batch.refresh_from_db()
        self.assertEqual(self.batch.state, Batch.State.COMPLETED)
        saved = adaptive_savings(self.batch)
        self.assertEqual((saved["settled"], saved["saved_votes"]), (9, 36))
        self.assertEqual((saved["withdrawn"], saved["added"], saved["saved_money"]), (12, 4, Decimal("3.20")))
        run = batch_aggregate(batch=self.batch, samples=0)
        outcomes = dict(run.outcomes.values_list("item_id", "outcome"))
        self.assertEqual({pk for pk, outcome in outcomes.items() if outcome == POSITIVE}, keep)
        self.assertEqual({outcomes[pk] for pk in no}, {DISCARDED})
        self.assertIn("positives only", run.rules_text)

    def test_adaptive_needs_a_settled_rule_and_a_provider_that_can_withdraw_places(self):
        with self.assertRaisesMessage(CrowdError, "a Prolific study's places only go up"):
            labeling_batch_create(name="p", items=[spec("x", "X.")], provider="prolific",
                         adaptive="outcomes")
        with self.assertRaisesMessage(CrowdError, "needs a rule for when an item is settled, and a span batch"):
            spans_batch_create(name="s", items=[spec("x", "X.")], adaptive="outcomes")
        with self.assertRaisesMessage(CrowdError, "adaptive redundancy is one of 'outcomes', 'positives', not 'yes'"):
            labeling_batch_create(name="y", items=[spec("x", "X.")], adaptive="yes")


class AdaptiveMTurkTest(MTurkTestCase):
    def test_a_retired_hit_expires_at_mturk_and_the_re_packed_one_asks_for_the_votes_still_needed(self):
        with self.captureOnCommitCallbacks(execute=True):
            batch = self.publish(count=8, items_per_hit=4, assignments_per_hit=5, adaptive="outcomes")
        first, second = batch.hits.order_by("index")
        split = sorted(first.items.values_list("pk", flat=True))[:3]
        for n, name in enumerate(("A1", "A2", "A3")):
            worker = self.worker(name)
            assignment_id = worker.accept(first.provider_hit_id)
            worker.submit(assignment_id, {f"a-{item.id}-0": "0" if n == 2 and item.id in split else "1"
                                          for item in first.ordered_items()})
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=batch)
        first.refresh_from_db()
        self.assertEqual((first.places, first.state), (3, Hit.State.EXPIRED))
        remote = self.emulator.account.hits[first.provider_hit_id]
        self.assertLessEqual(remote["Expiration"], self.emulator.account.clock())
        for name in ("A4", "A5", "A6", "A7", "A8"):
            self.work(self.worker(name), second)
        with self.captureOnCommitCallbacks(execute=True):
            batch_sync(batch=batch)
        repacked = batch.hits.get(index=2)
        self.assertEqual(self.emulator.account.hits[repacked.provider_hit_id]["MaxAssignments"], 2)
        # MTurk lets anyone accept: a worker who voted on the sentence is flagged at sync, never counted.
        self.work(self.worker("A1"), repacked)
        self.work(self.worker("A4"), repacked)
        batch_sync(batch=batch)
        flagged = Assignment.objects.get(hit=repacked, worker__external_id="A1")
        self.assertIn("already voted on it", flagged.flag)
        self.assertEqual(Assignment.objects.filter(hit=repacked, flag="").count(), 1)
