from datetime import timedelta
from io import StringIO
from xml.etree import ElementTree

import pytest
from django.core.management import call_command
from django.test import TestCase
from django.utils import timezone

from designs.semeval import labeling_batch_create
from emulators.mturk import MTurkEmulator
from emulators.mturk.worker_client import EmulatedWorker, WorkerRefused
from hits.models import Worker
from hits.providers import use_provider
from hits.providers.mturk import MTurkProvider
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish
from qualification import mturk
from qualification.grading import grade
from qualification.models import Grant, QualificationTest
from qualification.services import attempt_start, attempt_submit, grants_revoke, qualification_test_create
from tests.base import BaseTestCase
from tests.fixtures import released_sample
from tests.hits.helpers import spec

RELEASED = released_sample()


def test_it_grades_at_the_threshold_and_counts_unanswered_as_wrong():
    key = {n: n % 2 for n in range(40)}
    right_32 = {n: key[n] for n in range(32)}  # 8 unanswered
    assert grade(right_32, key, 80) == (80, True)
    assert grade({n: key[n] for n in range(31)}, key, 80) == (78, False)  # 77.5 rounds half up
    wrong = {n: 1 - key[n] for n in range(40)}
    assert grade(wrong, key, 80) == (0, False)


class QualificationTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.test = qualification_test_create(name="screen", path=RELEASED, seed=1, retake_delay=3600)
        cls.key = {f"item-{item.pk}": str(item.answer) for item in cls.test.items.all()}

    def answers(self, right):
        return {name: value if n < right else str(1 - int(value)) for n, (name, value) in enumerate(self.key.items())}


class DrawTests(QualificationTestCase):
    def test_it_draws_a_balanced_diverse_test(self):
        items = list(self.test.items.all())
        self.assertEqual(len(items), 40)
        self.assertEqual(sum(item.answer for item in items), 20)
        covered = {row for item in items for row in item.rows}
        self.assertGreaterEqual(len(covered), 12)
        lengths = sorted(len(item.text.split()) for item in items)
        self.assertLess(lengths[0], 15)
        self.assertGreater(lengths[-1], 40)

    def test_its_xml_validates_in_structure_and_size(self):
        form = mturk.question_form_xml(self.test)
        key = mturk.answer_key_xml(self.test)
        for xml in (form, key):
            self.assertLess(len(xml.encode("utf-8")), 65_535)
        ns = {"q": mturk.QUESTION_FORM_NS, "k": mturk.ANSWER_KEY_NS}
        questions = ElementTree.fromstring(form).findall("q:Question", ns)
        self.assertEqual(len(questions), 40)
        for question in questions:
            self.assertTrue(question.findtext("q:QuestionIdentifier", namespaces=ns).startswith("item-"))
            selections = question.findall("q:AnswerSpecification/q:SelectionAnswer/q:Selections/q:Selection", ns)
            self.assertEqual([s.findtext("q:SelectionIdentifier", namespaces=ns) for s in selections], ["1", "0"])
        root = ElementTree.fromstring(key)
        self.assertEqual(len(root.findall("k:Question", ns)), 40)
        self.assertEqual(root.findtext("k:QualificationValueMapping/k:PercentageMapping/k:MaximumSummedScore",
                                       namespaces=ns), "40")


class AttemptTests(QualificationTestCase, BaseTestCase):
    def setUp(self):
        self.worker = Worker.objects.create(provider="inhouse", external_id="taker")

    def test_it_accepts_one_submission_per_attempt(self):
        attempt = attempt_start(test=self.test, worker=self.worker)
        attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(40))
        with self.assertRaisesRegex(CrowdError, "sent this attempt already"):
            attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(0))
        self.assertEqual(Grant.objects.get(worker=self.worker).score, 100)

    def test_it_enforces_the_retake_delay(self):
        now = timezone.now()
        attempt = attempt_start(test=self.test, worker=self.worker, now=now)
        failed = attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(20), now=now)
        self.assertEqual((failed.score, failed.passed), (50, False))
        with self.assertRaisesRegex(CrowdError, "you can take it again from"):
            attempt_start(test=self.test, worker=self.worker, now=now + timedelta(minutes=59))
        again = attempt_start(test=self.test, worker=self.worker, now=now + timedelta(minutes=61))
        self.assertNotEqual(again.pk, attempt.pk)

    def test_it_refuses_another_workers_attempt_and_a_late_one(self):
        attempt = attempt_start(test=self.test, worker=self.worker)
        other = Worker.objects.create(provider="inhouse", external_id="other")
        with self.assertRaisesRegex(CrowdError, "another worker's"):
            attempt_submit(attempt=attempt, worker=other, answers=self.answers(40))
        with self.assertRaisesRegex(CrowdError, "another worker's"):
            attempt_submit(attempt=attempt, worker=other, answers=self.answers(40),
                           now=attempt.deadline + timedelta(seconds=1))
        attempt.refresh_from_db()
        self.assertIsNone(attempt.submitted)  # another worker's late try closes nothing
        with self.assertRaisesRegex(CrowdError, "ran out at"):
            attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(40),
                           now=attempt.deadline + timedelta(seconds=1))
        attempt.refresh_from_db()  # graded without answers although the submission was refused
        self.assertEqual((attempt.passed, attempt.score, attempt.submitted is not None), (False, 0, True))
        with self.assertRaisesRegex(CrowdError, "sent this attempt already"):
            attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(40))

    def test_an_unqualified_worker_is_refused_at_claim_and_at_submit(self):
        batch = batch_publish(batch=labeling_batch_create(
            name="q", requirements={"qualification": "screen"},
            items=[spec(f"s{n}", f"S {n}.") for n in range(5)]))
        with self.assertRaisesRegex(CrowdError, "needs the screening test, which you have not passed yet"):
            assignment_claim(batch=batch, worker=self.worker)
        attempt = attempt_start(test=self.test, worker=self.worker)
        attempt_submit(attempt=attempt, worker=self.worker, answers=self.answers(36))
        assignment = assignment_claim(batch=batch, worker=self.worker)
        grants_revoke(worker=self.worker, reason="quality dropped")
        with self.assertRaisesRegex(CrowdError, "was withdrawn"):
            assignment_submit(assignment=assignment, worker=self.worker,
                              raw_answers={f"item-{i.pk}": "1" for i in assignment.hit.ordered_items()})
        with self.assertRaisesRegex(CrowdError, "withdrawn \\(quality dropped\\)"):
            attempt_start(test=self.test, worker=self.worker)

    def test_a_new_version_keeps_old_grants_unless_asked(self):
        attempt_submit(attempt=attempt_start(test=self.test, worker=self.worker), worker=self.worker,
                       answers=self.answers(40))
        qualification_test_create(name="screen", path=RELEASED, seed=2)
        batch = batch_publish(batch=labeling_batch_create(
            name="v", requirements={"qualification": "screen"},
            items=[spec("s", "S.")]))
        self.assertIsNotNone(assignment_claim(batch=batch, worker=self.worker))
        strict = batch_publish(batch=labeling_batch_create(
            name="v2", requirements={"qualification": "screen", "min_version": 2},
            items=[spec("s", "S.")]))
        with self.assertRaisesRegex(CrowdError, "have not passed"):
            assignment_claim(batch=strict, worker=self.worker)


class MTurkQualificationTests(QualificationTestCase):
    def test_mturk_grades_the_test_and_the_hit_type_requires_the_score(self):
        now = [1_800_000_000.0]
        with MTurkEmulator(seed=5, clock=lambda: now[0]) as emulator:
            provider = MTurkProvider(emulator.client())
            previous = use_provider("mturk", provider)
            self.addCleanup(use_provider, "mturk", previous)
            type_id = mturk.qualification_type_create(test=self.test, provider=provider)
            remote = emulator.account.qualification_types[type_id]
            self.assertIn("<QuestionForm", remote["Test"])
            good, poor = EmulatedWorker(emulator.url, "AGOOD"), EmulatedWorker(emulator.url, "APOOR")
            self.assertEqual(good.take_qualification_test(type_id, self.answers(34)), 85)
            self.assertEqual(poor.take_qualification_test(type_id, self.answers(30)), 75)
            with pytest.raises(WorkerRefused):
                poor.take_qualification_test(type_id, self.answers(40))  # retry delay
            batch = batch_publish(batch=labeling_batch_create(
                name="mt", provider="mturk",
                requirements={"qualification_type_id": type_id, "min_score": 80},
                items=[spec(f"s{n}", f"S {n}.") for n in range(5)]))
            hit_id = batch.hits.get().provider_hit_id
            self.assertTrue(good.accept(hit_id))
            with self.assertRaises(WorkerRefused) as refused:
                poor.accept(hit_id)
            self.assertEqual(refused.exception.status, 403)
            out = StringIO()
            call_command("qualification", "sync", "--name", "screen", stdout=out)
            self.assertIn("synced 2 MTurk scores", out.getvalue())
            grant = Grant.objects.get(worker__external_id="AGOOD")
            self.assertEqual(grant.score, 85)
            self.assertFalse(Grant.objects.filter(worker__external_id="APOOR").exists())
            grants_revoke(worker=grant.worker, reason="spot checks below 70%")
            self.assertIn((provider.block_type(), "AGOOD"), emulator.account.scores)
            self.assertEqual(QualificationTest.objects.get(pk=self.test.pk).mturk_qualification_type_id, type_id)
            # A revocation sticks: after the retry delay the worker retakes the test, passes, and still
            # cannot take this requester's HITs; the sync does not grant them again either.
            now[0] += 2 * 3600
            self.assertEqual(good.take_qualification_test(type_id, self.answers(40)), 100)
            later = batch_publish(batch=labeling_batch_create(
                name="mt2", provider="mturk",
                requirements={"qualification_type_id": type_id, "min_score": 80},
                items=[spec(f"t{n}", f"T {n}.") for n in range(5)]))
            with self.assertRaises(WorkerRefused) as refused:
                good.accept(later.hits.get().provider_hit_id)
            self.assertEqual(refused.exception.status, 403)
            call_command("qualification", "sync", "--name", "screen", stdout=StringIO())
            self.assertIsNotNone(Grant.objects.get(worker__external_id="AGOOD").revoked)
