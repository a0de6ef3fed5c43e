"""Subtask-2 spans: words and offsets, the answers designs/semeval-subtask2.yaml's page may send, one annotator
per sentence, review with history, and what reaches a dataset version."""

import html
import json
from io import StringIO

from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from aggregation.services import batch_aggregate
from annotation.models import SpanAnnotation, SpanChange
from annotation.services import span_review
from core import spans
from designs.semeval import labeling_batch_create, span_batch_create, spans_batch_create
from hits.models import Assignment
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish, worker_for_user
from releases.services import dataset_from_aggregation
from tests.base import BaseTestCase
from tests.hits.helpers import span_fields, spec

TEXT = "If the bill had passed, prices would have fallen."


class WordsTest(BaseTestCase):
    def test_words_and_offsets_are_code_points_of_the_stored_text(self):
        for text, antecedent, first, last in [
            (TEXT, "If the bill had passed", 0, 4),
            ("Si j'étais riche 😀, rien.", "j'étais riche 😀", 1, 3),
            ("我如果有钱，会买房子。", "我如果有钱", 0, 4),
            ("Cafe\u0301 au lait, had I known.", "Cafe\u0301 au lait", 0, 2),
            ("👍🏽 had it rained", "👍🏽 had it", 0, 2),
        ]:
            with self.subTest(text=text):
                found = spans.offsets(text, (first, last), None)
                self.assertEqual(text[found.antecedent_start:found.antecedent_end + 1], antecedent)
                self.assertEqual((found.consequent_start, found.consequent_end), (-1, -1))
                self.assertEqual(spans.word_range(text, found.antecedent_start, found.antecedent_end), (first, last))

    def test_bad_word_ranges_are_refused_with_what_is_wrong(self):
        count = len(spans.words(TEXT))
        for value, message in [("3:1", "starts at word 3 after it ends at word 1"),
                               (f"0:{count}", f"the sentence has words 0..{count - 1}"),
                               ("a:b", "is not 'first:last'"), ("-1:2", "is not 'first:last'"), ("4", "first:last")]:
            with self.subTest(value=value), self.assertRaisesMessage(spans.SpanError, message):
                spans.parse_range(value, count, "the antecedent")
        with self.assertRaisesMessage(spans.SpanError, "overlap"):
            spans.offsets(TEXT, (0, 5), (4, 9))


class SpanTaskTest(BaseTestCase):
    def setUp(self):
        items = [spec(f"s{n}", text) for n, text in enumerate([TEXT, "Had I known."])]
        self.batch = batch_publish(batch=spans_batch_create(name="spans", items=items, items_per_hit=2,
                                                            assignments_per_hit=1))
        self.worker = worker_for_user(self.annotator)
        self.assignment = assignment_claim(batch=self.batch, worker=self.worker)
        self.first, self.second = sorted(self.assignment.hit.items.all(), key=lambda item: item.pk)
        self.client = Client(enforce_csrf_checks=True)
        self.client.force_login(self.annotator)
        self.client.get(reverse("hits:work_list"))
        self.token = self.client.cookies["csrftoken"].value

    def good(self, **extra):
        return {**span_fields(self.first, ant="0:4", con="6:9"), **span_fields(self.second, ant="0:2"), **extra}

    def spans(self, item, *marked):
        return {f"a-{item.pk}-1": json.dumps([list(span) for span in marked])}

    def post(self, data, token=True):
        url = reverse("hits:submit", args=[self.assignment.pk])
        return self.client.post(url, {**data, **({"csrfmiddlewaretoken": self.token} if token else {})})

    def test_forged_spans_are_refused_with_a_message_and_nothing_is_stored(self):
        first = self.first
        cases = [
            (self.spans(first, (0, 99, "antecedent")), f"the span 0:99 is outside the text (0:{len(TEXT)})"),
            (self.spans(first, (4, 0, "antecedent")), "the span 4:0 is outside the text"),
            (self.spans(first, (0, 22, "antecedent"), (20, 30, "consequent")), "the antecedent and the consequent "
                                                                                "overlap"),
            (self.spans(first, (24, 48, "consequent")), ": mark the antecedent"),
            (self.spans(first, (0, 2, "antecedent"), (3, 6, "antecedent")), "mark one antecedent only"),
            (self.spans(first, (0, 2, "condition")), "'condition' is not one of the span labels"),
            (self.spans(first, [0, 2]), "is not a span [start, end, label]"),
            ({f"a-{first.pk}-1": "not json"}, "the spans could not be read"),
            ({f"a-{first.pk}-0": "maybe"}, "'maybe' is not one of the labels (yes, no)"),
            ({f"a-{first.pk}-0": ""}, "Sentence 1 (counterfactual): not answered yet"),
            ({"a-999999-1": "[]"}, "not in this HIT"),
        ]
        for extra, message in cases:
            with self.subTest(extra=extra):
                response = self.post(self.good(**extra))
                self.assertEqual(response.status_code, 400)
                self.assertIn(message, html.unescape(response.content.decode()))
        self.assertFalse(SpanAnnotation.objects.exists())
        self.assertEqual(Assignment.objects.get(pk=self.assignment.pk).state, "claimed")

    def test_csrf_is_enforced(self):
        self.assertEqual(self.post(self.good(), token=False).status_code, 403)
        self.assertFalse(SpanAnnotation.objects.exists())

    def test_a_submission_to_a_hit_the_worker_does_not_hold_is_refused(self):
        other = Client(enforce_csrf_checks=False)
        other.force_login(self.organizer)
        response = other.post(reverse("hits:submit", args=[self.assignment.pk]), self.good())
        self.assertEqual(response.status_code, 404)  # another worker's HIT is not found, as if it did not exist
        self.assertFalse(SpanAnnotation.objects.exists())

    def test_a_double_submission_stores_one_result(self):
        self.assertEqual(self.post(self.good()).status_code, 302)
        self.assertEqual(self.post(self.good(**span_fields(self.first, ant="0:4", con="7:9"))).status_code, 302)
        self.assertEqual(SpanAnnotation.objects.count(), 2)
        stored = SpanAnnotation.objects.get(item_id=self.first)
        self.assertEqual(stored.consequent, "prices would have fallen")
        self.assertEqual(SpanChange.objects.filter(action="submitted").count(), 2)

    def test_the_mturk_question_is_the_same_task(self):
        batch = spans_batch_create(name="mturk spans", provider="mturk", assignments_per_hit=1,
                                   items=[spec("m", "<b>Had</b> I known, I would have left.")])
        batch.hits.update(provider_hit_id="3SPANHIT")  # as published
        page = self.client.get(f"/mturk/hits/{batch.hits.get().pk}/?hitId=3SPANHIT").content.decode()
        self.assertIn("https://www.mturk.com/mturk/externalSubmit", page)
        # The markup is text, one word at a time, with its characters for the span field.
        self.assertIn('<span class="tok" data-start="0">&lt;</span>', page)
        self.assertIn("spanWidget", page)
        self.assertNotIn("<b>Had</b>", page)

    def test_the_page_shows_each_word_with_its_characters(self):
        page = self.client.get(reverse("hits:assignment", args=[self.assignment.pk])).content.decode()
        self.assertIn('<span class="tok" data-start="16">passed</span>', page)
        self.assertIn(f'name="a-{self.first.pk}-1"', page)


class ReviewTest(BaseTestCase):
    def setUp(self):
        items = [spec(f"s{n}", f"If it had rained {n} times, we would have stayed home.", gold_answer=1)
                 for n in range(6)]
        items += [spec(f"n{n}", f"Markets rose {n} percent.", gold_answer=0)
                  for n in range(4)]
        self.subtask1 = batch_publish(batch=labeling_batch_create(name="s1", items=items))
        voters = [worker_for_user(self._user(f"voter{n}", None)) for n in range(5)]
        for worker in voters:
            assignment = assignment_claim(batch=self.subtask1, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": str(item.gold_answer) for item in assignment.hit.ordered_items()})
        self.run = batch_aggregate(batch=self.subtask1, seed=1)

    def annotate(self):
        batch = batch_publish(batch=span_batch_create(run=self.run, name="s2", items_per_hit=6))
        worker = worker_for_user(self.annotator)
        assignment = assignment_claim(batch=batch, worker=worker)
        raw = {}
        for n, item in enumerate(sorted(assignment.hit.ordered_items(), key=lambda i: i.key)):
            raw.update(span_fields(item, cf="0") if n == 0 else span_fields(item, ant="0:5", con="7:11"))
        assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)
        self.assertIsNone(assignment_claim(batch=batch, worker=worker_for_user(self.researcher)))  # one each
        return list(SpanAnnotation.objects.order_by("item__key"))

    def test_positives_go_to_one_annotator_once(self):
        annotations = self.annotate()
        self.assertEqual(len(annotations), 6)
        self.assertEqual(annotations[1].antecedent, "If it had rained 1 times")
        self.assertEqual(annotations[1].consequent, "we would have stayed home")
        with self.assertRaisesMessage(CrowdError, "no positive sentence without spans"):
            span_batch_create(run=self.run, name="again")

    def test_the_command_makes_a_span_batch_of_the_positives(self):
        out = StringIO()
        call_command("subtask2_batch", str(self.run.pk), "--name", "spans", "--items-per-hit", "4", stdout=out)
        self.assertIn("2 HITs, 6 sentences, one annotator each", out.getvalue())
        with self.assertRaisesMessage(CommandError, "no aggregation run 999"):
            call_command("subtask2_batch", "999", "--name", "x")
        with self.assertRaisesMessage(CommandError, "no positive sentence without spans"):
            call_command("subtask2_batch", str(self.run.pk), "--name", "again")

    def test_review_keeps_history_and_feeds_the_dataset_version(self):
        flagged, adjusted, accepted, *_ = self.annotate()
        span_review(annotation=flagged, user=self.organizer, action="remove", note="a real conditional")
        span_review(annotation=adjusted, user=self.organizer, action="accept", antecedent=(1, 5), consequent=None)
        span_review(annotation=accepted, user=self.organizer, action="accept")
        adjusted.refresh_from_db()
        self.assertEqual(adjusted.antecedent, "it had rained 1 times")
        self.assertEqual(adjusted.consequent_start, -1)
        history = list(adjusted.changes.values_list("action", flat=True))
        self.assertEqual(history, ["submitted", "adjusted"])
        change = adjusted.changes.get(action="adjusted")
        self.assertEqual(change.before["spans"][2:], [change.before["spans"][2], change.before["spans"][3]])
        self.assertNotEqual(change.before["spans"], change.after["spans"])
        self.assertEqual(accepted.changes.last().action, "accepted")

        version = dataset_from_aggregation(run=self.run, name="with-spans")
        self.assertEqual(version.config["removed_by_review"], 1)
        self.assertEqual(version.sentences.filter(label=1).count(), 5)  # 6 positives, one removed
        self.assertFalse(version.sentences.filter(text=flagged.text).exists())
        stored = {span.text: span for span in version.spans.all()}
        self.assertEqual(set(stored), {adjusted.text, accepted.text})  # unreviewed spans wait
        span = stored[adjusted.text]
        self.assertEqual(span.text[span.antecedent_start:span.antecedent_end + 1], "it had rained 1 times")
        sides = dict(version.sentences.values_list("text", "split"))
        self.assertEqual(span.split, sides[adjusted.text])

    def test_review_pages_refuse_bad_spans_and_other_roles(self):
        annotation = self.annotate()[1]
        url = reverse("annotation:review", args=[annotation.pk])
        for user in (self.annotator, self.researcher, self.outsider):
            self.client.force_login(user)
            self.assertEqual(self.client.get(url).status_code, 403)
            self.assertEqual(self.client.get(reverse("annotation:review_list")).status_code, 403)
        self.client.logout()
        self.assertEqual(self.client.get(url).status_code, 302)
        self.client.force_login(self.organizer)
        response = self.client.post(url, {"action": "accept", "ant-review": "0:40", "con-review": ""}, follow=True)
        self.assertContains(response, f"Annotation {annotation.pk}: the antecedent ends at word 40")
        response = self.client.post(url, {"action": "accept", "ant-review": "0:5", "con-review": "3:9"}, follow=True)
        self.assertContains(response, "overlap")
        annotation.refresh_from_db()
        self.assertEqual(annotation.state, "unreviewed")
        self.assertEqual(annotation.changes.count(), 1)
        listing = self.client.get(reverse("annotation:review_list") + "?show=flagged").content.decode()
        self.assertIn("flagged (1)", listing)
        self.assertIn("If it had rained 0 times", listing)
