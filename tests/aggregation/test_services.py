import random
from collections import Counter
from io import StringIO

from django.core.management import call_command
from django.urls import reverse

from aggregation.models import AggregationRun, ItemOutcome, SpotCheck
from aggregation.services import (
    batch_aggregate,
    spotcheck_decide,
    spotcheck_draw,
    workers_below,
)
from designs.semeval import labeling_batch_create, spans_batch_create
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker
from hits.models import Worker
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.services import (
    CrowdError,
    assignment_claim,
    assignment_submit,
    batch_publish,
    batch_sync,
    worker_for_user,
    worker_sanction,
)
from tests.base import BaseTestCase
from tests.hits.helpers import span_fields, spec

TRUTH = {n: int(n % 4 == 0) for n in range(50)}


def _items():
    return [spec(f"s{n}", f"Sentence {n}.", group=("finance", "politics")[n % 2])
            for n in range(50)]


def _gold():
    return [spec(f"g{n}", f"Gold {n}.", group="gold", gold_answer=n % 2)
            for n in range(6)]


def _answer(item, accuracy, rng):
    truth = item.gold_answer if item.gold_answer is not None else TRUTH[int(item.key[1:])]
    return str(truth if rng.random() < accuracy else 1 - truth)


class AggregateTests(BaseTestCase):
    def setUp(self):
        self.batch = batch_publish(batch=labeling_batch_create(name="agg", items=_items(),
                                                      gold_items=_gold(), gold_rate=0.1, seed=1))
        rng = random.Random(2)
        accuracies = (0.95, 0.95, 0.95, 0.9, 0.9, 0.5)
        self.workers = [Worker.objects.create(provider="inhouse", external_id=f"sim{n}") for n in range(6)]
        working = True
        while working:  # the workers take turns, one HIT each per round
            working = False
            for worker, accuracy in zip(self.workers, accuracies, strict=True):
                assignment = assignment_claim(batch=self.batch, worker=worker)
                if assignment is None:
                    continue
                working = True
                answers = {f"a-{item.pk}-0": _answer(item, accuracy, rng) for item in assignment.hit.ordered_items()}
                assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)

    def test_it_stores_outcomes_agreement_and_worker_quality(self):
        run = batch_aggregate(batch=self.batch, samples=200)
        self.assertEqual(ItemOutcome.objects.filter(run=run).count(), self.batch.items.count())
        outcomes = run.summary["outcomes"]
        self.assertEqual(sum(outcomes.values()), 56)
        self.assertGreater(outcomes["positive"], 0)
        self.assertGreater(outcomes["negative-100"], 0)
        self.assertLess(run.alpha_low, run.alpha)
        self.assertLess(run.alpha, run.alpha_high)
        # The known-answer items are reported apart (summary["gold"]), not as a domain.
        self.assertEqual(set(run.summary["by_domain"]), {"finance", "politics"})
        ranking = list(run.worker_stats.order_by("-consensus_accuracy").values_list("worker__external_id", flat=True))
        self.assertEqual(ranking[-1], "sim5")
        self.assertGreater(run.summary["gold"]["accuracy"], 0.9)

    def test_it_reports_items_short_of_votes_as_pending(self):
        extra = batch_publish(batch=labeling_batch_create(name="short", items=_items()[:5]))
        worker = worker_for_user(self.annotator)
        assignment = assignment_claim(batch=extra, worker=worker)
        assignment_submit(assignment=assignment, worker=worker,
                          raw_answers={f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
        run = batch_aggregate(batch=extra, samples=50)
        self.assertEqual(run.summary["outcomes"]["pending"], 5)
        self.assertEqual(run.summary["outcomes"]["positive"], 0)

    def test_it_draws_spot_checks_and_blocks_a_worker_below_threshold(self):
        batch_aggregate(batch=self.batch, samples=100)
        drawn = spotcheck_draw(batch=self.batch, rate=0.5, seed=4)
        self.assertEqual({c.assignment.worker_id for c in drawn}, {w.pk for w in self.workers})
        again = spotcheck_draw(batch=self.batch, rate=0.5, seed=4)
        self.assertTrue(set(c.assignment_id for c in again).isdisjoint(c.assignment_id for c in drawn))
        low = dict(workers_below(batch=self.batch, threshold=0.75))
        self.assertEqual([w.external_id for w in low], ["sim5"])
        worker_sanction(worker=next(iter(low)), reason="spot checks below 75%")
        self.assertTrue(Worker.objects.get(external_id="sim5").blocked)
        with self.assertRaisesRegex(CrowdError, "holds no qualification to revoke"):
            worker_sanction(worker=self.workers[0], reason="x", block=False, revoke=True)

    def test_drawing_by_skill_looks_more_at_the_workers_the_model_trusts_least(self):
        run = batch_aggregate(batch=self.batch, samples=0, method="dawid-skene")
        skills = dict(run.worker_stats.values_list("worker_id", "skill"))
        submitted = Counter(self.batch.hits.values_list("assignments__worker_id", flat=True))
        drawn = Counter(check.assignment.worker_id for check in spotcheck_draw(batch=self.batch, rate=0.3, seed=2,
                                                                                by_skill=True))
        for worker, count in drawn.items():
            self.assertEqual(count, max(1, round(min(1.0, 0.3 * (2 - skills[worker])) * submitted[worker])))
        lowest, highest = min(skills, key=skills.get), max(skills, key=skills.get)
        self.assertGreater(drawn[lowest] / submitted[lowest], drawn[highest] / submitted[highest])

    def test_it_lets_an_organizer_decide_spot_checks_on_the_page(self):
        batch_aggregate(batch=self.batch, samples=100)
        check = spotcheck_draw(batch=self.batch, rate=0.1, seed=1)[0]
        url = reverse("aggregation:spot_checks")
        for user in (self.annotator, self.researcher, self.outsider):
            self.login(user)
            self.assertEqual(self.client.get(url).status_code, 403)
        self.login(self.organizer)
        page = self.client.get(url)
        self.assertContains(page, "Sentence")
        self.client.post(reverse("aggregation:decide", args=[check.pk]), {"decision": "reject", "feedback": "no"})
        check.refresh_from_db()
        self.assertEqual((check.decision, check.assignment.state), ("rejected", "rejected"))

    def test_it_blocks_everyone_below_the_threshold_in_one_action(self):
        batch_aggregate(batch=self.batch, samples=100)
        spotcheck_draw(batch=self.batch, rate=0.5, seed=4)
        self.login(self.annotator)
        url = reverse("aggregation:sanction")
        self.assertEqual(self.client.post(url, {"batch": self.batch.pk, "threshold": "0.75"}).status_code, 403)
        self.login(self.organizer)
        self.client.post(url, {"batch": self.batch.pk, "threshold": "0.75"})
        self.assertEqual(list(Worker.objects.filter(blocked=True).values_list("external_id", flat=True)), ["sim5"])
        self.assertIn("below 75%", Worker.objects.get(external_id="sim5").blocked_reason)

    def test_it_prints_the_report_from_the_command(self):
        out = StringIO()
        call_command("aggregate", str(self.batch.pk), "--samples", "100", "--keep-partial-negatives", "0.5",
                     stdout=out)
        text = out.getvalue()
        self.assertIn("Krippendorff's alpha (nominal)", text)
        self.assertIn("a seeded sample of 50% (seed 0)", text)
        self.assertRegex(text.splitlines()[-1], r"inhouse:sim5")
        self.assertEqual(AggregationRun.objects.count(), 1)


class SpotCheckMTurkTests(BaseTestCase):
    def test_spot_check_decisions_reach_mturk_as_approve_and_reject(self):
        with MTurkEmulator(seed=3) as emulator:
            previous = use_provider("mturk", MTurkProvider(emulator.client()))
            self.addCleanup(use_provider, "mturk", previous)
            batch = batch_publish(batch=labeling_batch_create(name="mt", items=_items()[:25],
                                                     provider="mturk", assignments_per_hit=2))
            hit = batch.hits.get()
            for worker_id, value in (("AGOOD", "1"), ("ASPAM", "0")):
                worker = EmulatedWorker(emulator.url, worker_id)
                assignment = worker.accept(hit.provider_hit_id)
                worker.submit(assignment, {f"a-{item.pk}-0": value for item in hit.ordered_items()})
            batch_sync(batch=batch)
            batch_aggregate(batch=batch, samples=50)
            checks = {c.assignment.worker.external_id: c for c in spotcheck_draw(batch=batch, rate=1.0)}
            spotcheck_decide(spot_check=checks["AGOOD"], accept=True, user=self.organizer)
            spotcheck_decide(spot_check=checks["ASPAM"], accept=False, user=self.organizer, feedback="all no")
            remote = emulator.account.assignments
            self.assertEqual(remote[checks["AGOOD"].assignment.provider_assignment_id]["AssignmentStatus"], "Approved")
            spam = remote[checks["ASPAM"].assignment.provider_assignment_id]
            self.assertEqual((spam["AssignmentStatus"], spam["RequesterFeedback"]), ("Rejected", "all no"))
            with self.assertRaisesRegex(CrowdError, "already rejected"):
                spotcheck_decide(spot_check=SpotCheck.objects.get(pk=checks["ASPAM"].pk), accept=True,
                                 user=self.organizer)


class BeatTests(BaseTestCase):
    def test_it_aggregates_completed_batches_once_until_new_work_arrives(self):
        from aggregation.tasks import aggregate_completed_batches

        batch = batch_publish(batch=labeling_batch_create(name="beat", items=_items()[:5],
                                                 assignments_per_hit=1))
        worker = worker_for_user(self.annotator)
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker,
                          raw_answers={f"a-{item.pk}-0": "0" for item in assignment.hit.ordered_items()})
        spans = batch_publish(batch=spans_batch_create(name="spans", items=_items()[:1], assignments_per_hit=1))
        held = assignment_claim(batch=spans, worker=worker)
        item = held.hit.ordered_items()[0]
        assignment_submit(assignment=held, worker=worker, raw_answers=span_fields(item, cf="0", why="Not one."))
        aggregate_completed_batches()
        self.assertEqual(AggregationRun.objects.filter(batch=batch).count(), 1)
        aggregate_completed_batches()
        self.assertEqual(AggregationRun.objects.filter(batch=batch).count(), 1)
        # A completed span batch is not voted on: beat leaves it alone, and asking says why.
        spans.refresh_from_db()
        self.assertEqual(spans.state, "completed")
        self.assertFalse(AggregationRun.objects.filter(batch=spans).exists())
        with self.assertRaisesRegex(CrowdError, f"batch {spans.pk} is not aggregated by the vote rules: its label "
                                                f"scheme has no threshold rule"):
            batch_aggregate(batch=spans)
