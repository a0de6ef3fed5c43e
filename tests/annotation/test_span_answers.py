"""Two or more annotators per span sentence: every answer kept, the review starting from their majority,
and their agreement per batch and per domain, computed by hand on a small batch."""

import json
from io import StringIO

import krippendorff
import numpy as np
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts import roles
from aggregation.services import span_batch_agreement
from annotation.models import SpanAnnotation, SpanAnswer
from annotation.services import span_review
from designs.semeval import labeling_batch_create, spans_batch_create
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish, worker_for_user
from tests.base import BaseTestCase
from tests.hits.helpers import span_fields, spec

BILL = "If the bill had passed, prices would have fallen."  # If the bill had passed , prices would have fallen .
KNOWN = "Had I known, I would have stayed."  # Had I known , I would have stayed .
# Word ranges per annotator: (antecedent, consequent), or a reason when they say it is not counterfactual.
ANSWERS = {
    "ann1": {BILL: ("0:4", "7:9"), KNOWN: ("0:2", "4:7")},
    "ann2": {BILL: ("1:4", "6:9"), KNOWN: ("0:2", "4:7")},
    "ann3": {BILL: ("0:3", "6:8"), KNOWN: "it happened"},
}


class SpanAnswersTest(BaseTestCase):
    def setUp(self):
        items = [spec("bill", BILL, group="finance"), spec("known", KNOWN, group="politics")]
        self.batch = batch_publish(batch=spans_batch_create(name="double spans", items=items, items_per_hit=2,
                                                            assignments_per_hit=3))
        self.items = {item.content.text: item for item in self.batch.items.all()}
        self.assignments = {}

    def submit(self, name):
        user = User.objects.create_user(name, password="pass-word-1")
        user.groups.add(roles.group(roles.ANNOTATOR))
        worker = worker_for_user(user)
        assignment = assignment_claim(batch=self.batch, worker=worker)
        raw = {}
        for text, answer in ANSWERS[name].items():
            item = self.items[text]
            if isinstance(answer, str):
                raw.update(span_fields(item, cf="0", why=answer))
            else:
                raw.update(span_fields(item, ant=answer[0], con=answer[1]))
        self.assignments[name] = assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)[0]
        return worker

    def annotation(self, text):
        return SpanAnnotation.objects.get(item=self.items[text])

    def test_one_answer_is_kept_as_it_is_and_several_become_their_majority(self):
        first = self.submit("ann1")
        bill = self.annotation(BILL)
        self.assertEqual((bill.worker, bill.antecedent, bill.consequent),
                         (first, "If the bill had passed", "would have fallen"))
        self.submit("ann2")
        self.submit("ann3")
        bill = self.annotation(BILL)
        # "If" (ann1, ann3), "passed" (ann1, ann2), "prices" (ann2, ann3), "fallen" (ann1, ann2): each a majority.
        self.assertEqual((bill.antecedent, bill.consequent), ("If the bill had passed", "prices would have fallen"))
        self.assertIsNone(bill.worker)
        self.assertFalse(bill.flagged)
        self.assertEqual(SpanAnswer.objects.filter(item=self.items[BILL]).count(), 3)
        self.assertEqual([change.note for change in bill.changes.all()],
                         ["", "majority of 2 answers", "majority of 3 answers"])
        known = self.annotation(KNOWN)
        self.assertEqual((known.antecedent, known.consequent), ("Had I known", "I would have stayed"))
        self.assertTrue(known.flagged)
        self.assertEqual(known.flag_reason,
                         "1 of 3 annotators say it is not counterfactual (inhouse:ann3: it happened)")

    def test_a_replayed_submission_adds_no_answer_and_a_reviewed_sentence_keeps_its_review(self):
        worker = self.submit("ann1")
        self.assertEqual(assignment_submit(assignment=self.assignments["ann1"], worker=worker,
                                           raw_answers={})[1], False)
        self.assertEqual(SpanAnswer.objects.count(), 2)
        span_review(annotation=self.annotation(BILL), user=self.organizer, action="accept",
                    antecedent=(1, 4), consequent=(6, 9))
        self.submit("ann2")
        bill = self.annotation(BILL)
        self.assertEqual((bill.state, bill.antecedent), ("accepted", "the bill had passed"))
        self.assertEqual(SpanAnswer.objects.filter(item=self.items[BILL]).count(), 2)

    def test_the_review_page_shows_every_answer_the_majority_and_their_agreement(self):
        for name in ANSWERS:
            self.submit(name)
        client = Client()
        client.force_login(self.organizer)
        bill = self.annotation(BILL)
        page = client.get(reverse("annotation:review", args=[bill.pk])).content.decode()
        self.assertIn("3 annotators in double spans; the spans below start from their majority", page)
        # Pairs (ann1, ann2), (ann1, ann3), (ann2, ann3): antecedent words agreed 4+4+3, differing 1+1+2,
        # F1 = 22/26; consequent 3+2+3 against 1+2+1, F1 = 16/20; both 38/46.
        self.assertIn("Token F1 between them (3 pairs): antecedent 0.85, consequent 0.80, both 0.83.", page)
        self.assertEqual(page.count('class="span-answer"'), 3)
        self.assertIn('data-ant="0:4" data-con="6:9"', page)  # the form starts from the majority's spans
        known = self.annotation(KNOWN)
        page = client.get(reverse("annotation:review", args=[known.pk])).content.decode()
        self.assertIn("not counterfactual: <q>it happened</q>", page)
        listed = client.get(reverse("annotation:review_list") + "?show=all&worker="
                            + str(self.assignments["ann2"].worker_id)).content.decode()
        self.assertEqual(listed.count("majority of 3"), 2)

    def test_agreement_per_batch_and_domain_equals_the_hand_computed_values(self):
        for name in ANSWERS:
            self.submit(name)
        found = span_batch_agreement(batch=self.batch, samples=200)
        self.assertEqual((found["sentences"], found["pairs"]), (2, 4))
        self.assertAlmostEqual(found["f1"]["A"], 28 / 32)  # KNOWN adds 3 agreed antecedent words, none differing
        self.assertAlmostEqual(found["f1"]["C"], 24 / 28)
        self.assertAlmostEqual(found["by_domain"]["finance"]["f1"]["all"], 38 / 46)
        self.assertAlmostEqual(found["by_domain"]["politics"]["f1"]["all"], 1.0)
        # Token alpha: every word a unit valued A (0), C (1) or O (2) by each annotator who marked spans.
        a, c, o, none = 0, 1, 2, np.nan
        bill = [[a, a, a, a, a, o, o, c, c, c, o], [o, a, a, a, a, o, c, c, c, c, o],
                [a, a, a, a, o, o, c, c, c, o, o]]
        known = [[a, a, a, o, c, c, c, c, o], [a, a, a, o, c, c, c, c, o], [none] * 9]
        data = np.hstack([np.array(bill, dtype=float), np.array(known, dtype=float)])
        self.assertAlmostEqual(found["alpha"], krippendorff.alpha(reliability_data=data,
                                                                  level_of_measurement="nominal"))
        self.assertLessEqual(found["low"], found["alpha"])
        self.assertGreaterEqual(found["high"], found["alpha"])
        self.assertIsNone(found["by_domain"]["politics"]["low"])  # one sentence: no interval
        out = StringIO()
        call_command("span_agreement", str(self.batch.pk), "--json", "--samples", "200", stdout=out)
        self.assertEqual(json.loads(out.getvalue()), found)
        out = StringIO()
        call_command("span_agreement", str(self.batch.pk), "--samples", "0", stdout=out)
        self.assertIn("finance: 1 sentences, 3 pairs; token F1 antecedent 0.846, consequent 0.800", out.getvalue())
        self.login(self.organizer)
        dashboard = self.client.get("/dashboard/")
        self.assertContains(dashboard, "spans: token F1 0.87, token alpha")
        self.assertContains(dashboard, "finance F1 0.83")
        found = self.client.get(f"/api/batches/{self.batch.pk}/").json()["span_agreement"]
        self.assertEqual(found["by_domain"]["politics"]["f1"]["all"], 1.0)
        self.assertIsNone(found["low"])  # no bootstrap in a listing

    def test_span_agreement_refuses_a_batch_that_is_not_a_span_batch(self):
        labels = labeling_batch_create(name="labels", items=[spec("x", BILL)])
        with self.assertRaisesMessage(CrowdError, f"batch {labels.pk} is not a span batch"):
            span_batch_agreement(batch=labels)
