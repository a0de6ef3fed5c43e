"""The MTurk provider, through real boto3, against the protocol-level emulator."""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from core.items import ChoiceItem
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker, WorkerRefused
from hits.models import Assignment, Hit
from hits.providers import use_provider
from hits.providers.base import ProviderError
from hits.providers.mturk import MTurkProvider, parse_answer_xml
from hits.services import (
    BudgetExceeded,
    assignment_approve,
    assignment_reject,
    batch_expire,
    batch_publish,
    batch_sync,
    worker_block,
    worker_bonus,
)
from reproductions.copa import choice_batch_create
from reproductions.facts import fact_batch_create
from reproductions.rte import paragraph
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch, voted


class MTurkTestCase(BaseTestCase):
    def setUp(self):
        self.emulator = MTurkEmulator(seed=1).start()
        self.addCleanup(self.emulator.stop)
        self.provider = MTurkProvider(self.emulator.client())
        previous = use_provider("mturk", self.provider)
        self.addCleanup(use_provider, "mturk", previous)

    def publish(self, count=50, **options):
        return batch_publish(batch=make_batch(count=count, provider="mturk", **options))

    def worker(self, worker_id, **options):
        return EmulatedWorker(self.emulator.url, worker_id, **options)

    def work(self, worker, hit, value="1"):
        assignment_id = worker.accept(hit.provider_hit_id)
        worker.submit(assignment_id, {f"a-{item.id}-0": value for item in hit.ordered_items()})
        return assignment_id


class PublishTests(MTurkTestCase):
    def test_it_publishes_hits_with_the_papers_requirements(self):
        batch = self.publish(count=50, assignments_per_hit=5)
        self.assertEqual(len(self.emulator.account.hits), 2)
        remote = self.emulator.account.hits[batch.hits.first().provider_hit_id]
        self.assertEqual(remote["MaxAssignments"], 5)
        self.assertIn("HTMLQuestion", remote["Question"])
        self.assertIn("externalSubmit", remote["Question"])
        requirements = {r["QualificationTypeId"]: r for r in remote["QualificationRequirements"]}
        locales = {value["Country"] for value in requirements["00000000000000000071"]["LocaleValues"]}
        self.assertEqual(locales, {"US", "GB", "CA", "AU", "NZ", "IE"})
        self.assertEqual(requirements["000000000000000000L0"]["Comparator"], "GreaterThan")
        self.assertEqual(requirements["000000000000000000L0"]["IntegerValues"], [82])

    def test_it_refuses_to_publish_beyond_the_account_balance(self):
        self.emulator.account.balance = Decimal("1.00")
        with self.assertRaisesRegex(BudgetExceeded, "account holds 1.00"):
            self.publish(count=50)
        self.assertEqual(self.emulator.account.hits, {})

    def test_it_resumes_a_publish_killed_after_mturk_made_a_hit(self):
        batch = make_batch(count=100, provider="mturk")  # 4 HITs

        class Killed(BaseException):
            pass

        class DiesMidway(MTurkProvider):
            """The process dies after MTurk made the second HIT, before we stored its id."""

            made = 0

            def publish_hit(self, hit, items):
                provider_id = super().publish_hit(hit, items)
                DiesMidway.made += 1
                if DiesMidway.made == 2:
                    raise Killed
                return provider_id

        use_provider("mturk", DiesMidway(self.emulator.client()))
        with pytest.raises(Killed):
            batch_publish(batch=batch)
        self.assertEqual(len(self.emulator.account.hits), 2)
        self.assertEqual(batch.hits.exclude(provider_hit_id="").count(), 1)
        use_provider("mturk", self.provider)
        batch_publish(batch=batch)
        self.assertEqual(len(self.emulator.account.hits), 4)
        self.assertEqual(set(Hit.objects.values_list("provider_hit_id", flat=True)), set(self.emulator.account.hits))


class FaultTests(MTurkTestCase):
    @pytest.mark.slow  # a fault run of hundreds of HITs or a timer running out: CI runs it
    def test_it_publishes_exactly_500_hits_through_drops_and_throttling(self):
        batch = make_batch(count=500, items_per_hit=1, provider="mturk", assignments_per_hit=1)
        use_provider("mturk", MTurkProvider(self.emulator.client(backoff=False)))
        self.emulator.faults.set({"CreateHITWithHITType": {"drop": 0.1, "throttle": 0.1}})
        batch_publish(batch=batch)
        counts = self.emulator.faults.counts
        self.assertGreater(counts["drop"], 20)
        self.assertGreater(counts["throttle"], 20)
        self.assertEqual(len(self.emulator.account.hits), 500)
        local = set(batch.hits.values_list("provider_hit_id", flat=True))
        self.assertEqual(local, set(self.emulator.account.hits))
        self.assertEqual(batch.hits.filter(state="published").count(), 500)
        # The command an organizer runs afterwards finds nothing to say (it exits non-zero on any difference).
        self.emulator.faults.set({})
        out = StringIO()
        call_command("hits", "reconcile", "--all", stdout=out)
        self.assertIn(f"batch {batch.pk} (mturk): clean", out.getvalue())


class WorkTests(MTurkTestCase):
    def test_it_syncs_submissions_as_one_vote_per_sentence(self):
        batch = self.publish(count=50, assignments_per_hit=2)
        workers = [self.worker("AWORKER1"), self.worker("AWORKER2")]
        for hit in batch.hits.all():
            for n, worker in enumerate(workers):
                self.work(worker, hit, value=str(n))
        report = batch_sync(batch=batch)
        self.assertEqual((report.new, report.invalid), (4, 0))
        for assignment in Assignment.objects.select_related("worker", "hit"):
            expected = 0 if assignment.worker.external_id == "AWORKER1" else 1
            self.assertEqual(set(voted(assignment.answers)), {expected})
            self.assertEqual(len(assignment.answers), assignment.hit.hit_items.count())
        batch.refresh_from_db()
        self.assertEqual(batch.state, "completed")
        self.assertEqual(batch_sync(batch=batch).new, 0)  # a second sync stores nothing twice

    def test_it_pages_through_many_assignments(self):
        batch = self.publish(count=25, assignments_per_hit=120)
        hit = batch.hits.get()
        for n in range(105):
            self.work(self.worker(f"A{n:04d}"), hit)
        self.assertEqual(batch_sync(batch=batch).new, 105)

    def test_it_stores_a_replayed_submission_once(self):
        batch = self.publish(count=25)
        hit = batch.hits.get()
        worker = self.worker("AREPLAY")
        assignment_id = self.work(worker, hit)
        with self.assertRaises(WorkerRefused) as refused:
            worker.submit(assignment_id, {f"a-{item.id}-0": "0" for item in hit.ordered_items()})
        self.assertEqual(refused.exception.status, 409)
        batch_sync(batch=batch)
        self.assertEqual(Assignment.objects.get().answers[str(hit.ordered_items()[0].id)], {"counterfactual": "1"})

    def test_it_refuses_blocked_unqualified_and_foreign_work(self):
        batch = self.publish(count=25)
        hit = batch.hits.get()
        for worker_id, options in (("AABROAD", {"locale": "FR"}), ("ALOWRATE", {"approval_rate": 82})):
            with self.assertRaises(WorkerRefused) as refused:
                self.worker(worker_id, **options).accept(hit.provider_hit_id)
            self.assertEqual(refused.exception.status, 403)
        honest = self.worker("AHONEST")
        assignment_id = honest.accept(hit.provider_hit_id)
        thief = self.worker("ATHIEF")
        with self.assertRaises(WorkerRefused) as refused:
            thief.submit(assignment_id, {f"a-{item.id}-0": "1" for item in hit.ordered_items()})
        self.assertEqual(refused.exception.status, 403)
        honest.submit(assignment_id, {f"a-{item.id}-0": "1" for item in hit.ordered_items()})
        batch_sync(batch=batch)
        worker_block(worker=Assignment.objects.get().worker, reason="copied answers")
        self.assertIn("AHONEST", self.emulator.account.blocks)
        second = self.publish(count=25)
        with self.assertRaises(WorkerRefused) as refused:
            honest.accept(second.hits.get().provider_hit_id)
        self.assertEqual(refused.exception.status, 403)

    def test_approved_hits_and_masters_filters_reach_mturk(self):
        batch = self.publish(count=25, requirements={"min_approved_hits": 10000, "masters": True,
                                                     "min_approval_rate": 98})
        hit = batch.hits.get()
        for worker_id, options in (("AFEW", {"approved": 500, "masters": True}), ("ANOTMASTER", {"approved": 20000}),
                                   ("ALOW", {"approved": 20000, "masters": True, "approval_rate": 97})):
            with self.assertRaises(WorkerRefused) as refused:
                self.worker(worker_id, **options).accept(hit.provider_hit_id)
            self.assertEqual(refused.exception.status, 403, worker_id)
        self.work(self.worker("AMASTER", approved=20000, masters=True, approval_rate=99), hit)
        batch_sync(batch=batch)
        self.assertEqual(Assignment.objects.get().worker.external_id, "AMASTER")

    def test_it_sends_reviews_bonuses_and_expiry_to_mturk(self):
        batch = self.publish(count=25, assignments_per_hit=3)
        hit = batch.hits.get()
        for worker_id in ("AGOOD", "ABAD"):
            self.work(self.worker(worker_id), hit)
        batch_sync(batch=batch)
        good = Assignment.objects.get(worker__external_id="AGOOD")
        bad = Assignment.objects.get(worker__external_id="ABAD")
        assignment_approve(assignment=good, feedback="thanks")
        assignment_reject(assignment=bad, feedback="answered at random")
        remote = self.emulator.account.assignments
        self.assertEqual(remote[good.provider_assignment_id]["AssignmentStatus"], "Approved")
        self.assertEqual(remote[bad.provider_assignment_id]["RequesterFeedback"], "answered at random")
        worker_bonus(worker=good.worker, assignment=good, amount="0.30", reason="careful")
        worker_bonus(worker=good.worker, assignment=good, amount="0.30", reason="careful")
        self.assertEqual(len(self.emulator.account.bonuses), 1)
        batch_expire(batch=batch)
        self.assertEqual(self.emulator.account._hit_status(hit.provider_hit_id), "Reviewable")

    def test_it_names_the_hit_when_mturk_refuses(self):
        batch = make_batch(count=25, provider="mturk")
        batch.lifetime = 5  # MTurk wants at least 30 s
        batch.save()
        with self.assertRaisesRegex(ProviderError, r"HIT 1 of batch \d+: .*LifetimeInSeconds"):
            batch_publish(batch=batch)


def test_it_parses_question_form_answers():
    xml = ('<QuestionFormAnswers xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/'
           'QuestionFormAnswers.xsd"><Answer><QuestionIdentifier>item-1</QuestionIdentifier><FreeText>1</FreeText>'
           '</Answer><Answer><QuestionIdentifier>q2</QuestionIdentifier><SelectionIdentifier>no</SelectionIdentifier>'
           '</Answer></QuestionFormAnswers>')
    assert parse_answer_xml(xml) == {"item-1": "1", "q2": "no"}


class ExternalQuestionTests(MTurkTestCase):
    def test_it_serves_the_external_question_page_for_mturk_hits_only(self):
        self.provider.question = "external"
        self.provider.external_url = "https://crowd.example.org"
        batch = self.publish(count=25)
        hit = batch.hits.get()
        remote = self.emulator.account.hits[hit.provider_hit_id]["Question"]
        self.assertIn(f"<ExternalURL>https://crowd.example.org/mturk/hits/{hit.pk}/</ExternalURL>", remote)
        # Only with the HIT's own id, as MTurk adds it to the URL: no other HIT is reached by changing the number.
        self.assertEqual(self.client.get(f"/mturk/hits/{hit.pk}/").status_code, 404)
        self.assertEqual(self.client.get(f"/mturk/hits/{hit.pk}/?hitId=3OTHERHIT").status_code, 404)
        page = self.client.get(f"/mturk/hits/{hit.pk}/?hitId={hit.provider_hit_id}")
        self.assertContains(page, "mturk/externalSubmit")
        self.assertContains(page, "ASSIGNMENT_ID_NOT_AVAILABLE")  # preview disables submit
        self.assertContains(page, "&lt;b&gt;bold&lt;/b&gt;")
        self.assertNotIn("X-Frame-Options", page.headers)
        inhouse = make_batch(count=5)
        self.assertEqual(self.client.get(f"/mturk/hits/{inhouse.hits.get().pk}/?hitId=").status_code, 404)


class OtherDesignsOnMTurkTests(MTurkTestCase):
    """Balanced COPA's design file and the facts task go out as HTML questions and come back through sync, parsed
    by their task types: a statement that breaks a rule is kept as sent with the reason, and counts as no answer."""

    def test_a_choice_batch_goes_out_and_its_answers_come_back(self):
        items = [ChoiceItem(premise=f"The man {n} broke his toe.", alternative_1="He dropped a hammer.",
                            alternative_2="He got a hole in his sock.", item_id=str(n + 1), answer=1)
                 for n in range(3)]
        batch = batch_publish(batch=choice_batch_create(items=items, name="copa", provider="mturk", items_per_hit=3,
                                                        assignments_per_hit=1,
                                                        requirements={"masters": True, "min_approved_hits": 10}))
        hit = batch.hits.get()
        question = self.emulator.account.hits[hit.provider_hit_id]["Question"]
        self.assertIn("What was the cause of this?", question)
        self.assertIn("He got a hole in his sock.", question)
        worker = self.worker("ACHOOSER", masters=True, approved=100)
        assignment_id = worker.accept(hit.provider_hit_id)
        worker.submit(assignment_id, {f"a-{item.id}-0": "2" for item in hit.ordered_items()})
        batch_sync(batch=batch)
        self.assertEqual(list(Assignment.objects.get().answers.values()), [{"choice": "2"}] * 3)

    def test_a_facts_batch_goes_out_and_a_copied_statement_is_not_counted_at_sync(self):
        text = "Oracle had fought to keep the forms from being released."
        item = paragraph("o1", text, "Oracle")
        batch = batch_publish(batch=fact_batch_create(items=[item], name="facts", provider="mturk", items_per_hit=1,
                                                      assignments_per_hit=2))
        hit = batch.hits.get()
        question = self.emulator.account.hits[hit.provider_hit_id]["Question"]
        self.assertIn('<mark class="highlight">Oracle</mark>', question)
        self.assertIn("text-input", question)
        field = f"a-{hit.ordered_items()[0].id}-0-1"
        good, copier = self.worker("AWRITER"), self.worker("ACOPIER")
        good.submit(good.accept(hit.provider_hit_id), {field: "Oracle wanted the papers kept secret"})
        copier.submit(copier.accept(hit.provider_hit_id), {field: "Oracle had fought to keep the forms"})
        batch_sync(batch=batch)
        stored = {a.worker.external_id: a for a in Assignment.objects.select_related("worker")}
        self.assertEqual(list(stored["AWRITER"].answers.values()),
                         [{"statements": {"Statement 1": "Oracle wanted the papers kept secret"}}])
        # Kept as sent, with no answers to count and the reason for the reviewer (MTurk's form has no server check).
        self.assertIsNone(stored["ACOPIER"].answers)
        self.assertIn("Statement 1: copy: 100% of its words are in the text", stored["ACOPIER"].feedback)
