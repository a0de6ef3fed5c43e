"""Human evaluation: Likert ratings and pairwise comparisons through the platform, their reports by hand, and
ordinal alpha against the krippendorff package."""

import krippendorff
import numpy as np
import pytest

from aggregation.maths import ordinal_alpha, ordinal_alpha_interval
from designs.items import Record
from hits.models import Worker
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish
from reproductions.story_evaluation import likert_report, pairwise_report, ratings_batch_create
from tests.base import BaseTestCase


def _counts(data, values):
    counts = np.zeros((data.shape[1], len(values)))
    for coder in data:
        for unit, value in enumerate(coder):
            if not np.isnan(value):
                counts[unit, values.index(int(value))] += 1
    return counts


@pytest.mark.parametrize("seed", range(6))
def test_ordinal_alpha_equals_the_krippendorff_package(seed):
    rng = np.random.default_rng(seed)
    coders, units, scale = rng.integers(2, 6), rng.integers(5, 60), rng.choice([3, 5, 7])
    truth = rng.integers(1, scale + 1, size=units)
    data = np.where(rng.random((coders, units)) < 0.6, truth, rng.integers(1, scale + 1, size=(coders, units)))
    data = data.astype(float)
    data[rng.random((coders, units)) < 0.2] = np.nan
    values = list(range(1, scale + 1))
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=values)
    assert ordinal_alpha(_counts(data, values)) == pytest.approx(expected, abs=1e-9)


def test_ordinal_alpha_by_hand_and_its_interval():
    # Two raters, three items on a 3-point scale: (1,1), (2,3), (3,3). Value totals n1=2, n2=1, n3=3, n=6.
    # Coincidences: o11=2, o23=o32=1, o33=2. δ²(2,3) = (n2 + n3 - (n2 + n3)/2)² = 2² = 4, δ²(1,2) = 1.5² = 2.25,
    # δ²(1,3) = (6 - 2.5)² = 12.25. Do·(n-1) = 5·(2·4) = 40; De = 2·(2·1·2.25 + 2·3·12.25 + 1·3·4) = 180.
    counts = np.array([[2, 0, 0], [0, 1, 1], [0, 0, 2]])
    assert ordinal_alpha(counts) == pytest.approx(1 - 40 / 180)
    low, high = ordinal_alpha_interval(counts, samples=200, seed=1)
    assert low <= high
    assert np.isnan(ordinal_alpha(np.array([[1, 0, 0], [0, 1, 0]])))  # nobody rated an item twice


class EvaluationTests(BaseTestCase):
    def setUp(self):
        self.workers = [Worker.objects.create(provider="inhouse", external_id=f"r{n}") for n in range(3)]

    def answer(self, batch, worker, fields_for):
        assignment = assignment_claim(batch=batch, worker=worker)
        fields = {}
        for item in assignment.hit.ordered_items():
            fields |= fields_for(item)
        return assignment_submit(assignment=assignment, worker=worker, raw_answers=fields)

    def test_likert_ratings_are_parsed_and_reported_by_system_with_ordinal_alpha(self):
        records = [Record(id=f"{system}{n}", text=f"Ending {system} {n}.", group=system,
                          fields={"story": "A story.", "system": system})
                   for system in ("human", "original") for n in range(2)]
        batch = batch_publish(batch=ratings_batch_create(records, name="rate", items_per_hit=4,
                                                         assignments_per_hit=2))
        given = {"human": (3, 2), "original": (1, 3)}
        shift = {0: 0, 1: -1}  # the second rater is one point harsher on "fits" for human endings
        with self.assertRaisesMessage(CrowdError, "text 1: Does the ending keep as much of the original as it "
                                                  "could?: '9' is not"):
            self.answer(batch, self.workers[0], lambda item: {f"a-{item.pk}-0": "2", f"a-{item.pk}-1": "9"})
        for rater in (0, 1):
            self.answer(batch, self.workers[rater], lambda item, rater=rater: {
                f"a-{item.pk}-0": str(given[item.content.fields["system"]][0] + (
                    shift[rater] if item.content.fields["system"] == "human" else 0)),
                f"a-{item.pk}-1": str(given[item.content.fields["system"]][1])})
        found = likert_report(batch, samples=100)
        fits, minimal = found["questions"]
        self.assertEqual(fits["question"], "Does the ending fit the new second sentence?")
        self.assertEqual(fits["mean"], {"human": 2.5, "original": 1.0})
        self.assertEqual(minimal["mean"], {"human": 2.0, "original": 3.0})
        data = np.array([[3, 3, 1, 1], [2, 2, 1, 1]], dtype=float)
        self.assertAlmostEqual(fits["alpha"], krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                                                 value_domain=[1, 2, 3]))
        self.assertEqual(minimal["alpha"], 1.0)
        with self.assertRaisesMessage(CrowdError, f"batch {batch.pk} is not a pairwise comparison batch"):
            pairwise_report(batch)

    def test_pairwise_answers_give_wins_ties_and_alpha(self):
        records = [Record(id=f"p{n}", text="A story.", fields={"endings": ["One.", "Two."], "system_a": a,
                                                                "system_b": b})
                   for n, (a, b) in enumerate((("human", "original"), ("original", "human"), ("human", "original")))]
        batch = batch_publish(batch=ratings_batch_create(records, name="pairs", comparisons=True, items_per_hit=3,
                                                         assignments_per_hit=2))
        with self.assertRaisesMessage(CrowdError, "pair 1: Which ending fits the story with its new second sentence "
                                                  "better, changing as little as needed?: 'c' is not one of"):
            self.answer(batch, self.workers[0], lambda item: {f"a-{item.pk}-0": "c"})
        votes = {"p0": ("A", "A"), "p1": ("B", "Equally good"), "p2": ("Equally bad", "Equally bad")}
        for rater in (0, 1):
            self.answer(batch, self.workers[rater],
                        lambda item, rater=rater: {f"a-{item.pk}-0": votes[item.content.record_id][rater]})
        found = pairwise_report(batch, samples=100)
        # p0: A (human) wins; p1: "b" and "both_good" tie; p2: equally bad.
        self.assertEqual(found["outcomes"], {"both_bad": 1, "human": 1, "tie": 1})
        counts = np.array([[2, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 2]])
        self.assertAlmostEqual(found["alpha"], krippendorff.alpha(value_counts=counts,
                                                                  level_of_measurement="nominal"))


    def test_old_likert_and_pairwise_batches_become_design_batches_with_their_answers(self):
        import importlib
        import json

        from django.apps import apps

        from designs.models import DesignBatch
        from hits.models import Assignment, Batch, Item

        rate = batch_publish(batch=ratings_batch_create(
            [Record(id=f"r{n}", text=f"Ending {n}.", group=system, fields={"story": "A story.", "system": system})
             for n, system in enumerate(("human", "original"))], name="rate", items_per_hit=2, assignments_per_hit=2))
        pairs = batch_publish(batch=ratings_batch_create(
            [Record(id="p", text="A story.", fields={"endings": ["One.", "Two."], "system_a": "original",
                                                     "system_b": "human"})],
            name="pairs", comparisons=True, items_per_hit=1, assignments_per_hit=2))
        for rater, (fits, vote) in enumerate((("3", "B"), ("2", "Equally good"))):
            self.answer(rate, self.workers[rater], lambda item, fits=fits: {
                f"a-{item.pk}-0": fits, f"a-{item.pk}-1": "3" if item.content.fields["system"] == "original" else "1"})
            self.answer(pairs, self.workers[rater], lambda item, vote=vote: {f"a-{item.pk}-0": vote})
        before = likert_report(rate, samples=50), pairwise_report(pairs, samples=50)
        # The rows as the retired task types stored them.
        old_vote = {"A": "a", "B": "b", "Equally good": "both_good", "Equally bad": "both_bad"}
        for batch, kind in ((rate, "likert"), (pairs, "pairwise")):
            DesignBatch.objects.filter(batch=batch).delete()
            Batch.objects.filter(pk=batch.pk).update(task_type=kind)
            for item in Item.objects.filter(batch=batch):
                fields = item.content.fields
                payload = ({"kind": "rating", "item_id": item.content.record_id, "context": fields["story"],
                            "output": item.content.text, "system": fields["system"], "scale": 3,
                            "questions": ["Does the ending fit the new second sentence?",
                                          "Does the ending keep as much of the original as it could?"]}
                           if kind == "likert" else
                           {"kind": "pair", "item_id": item.content.record_id, "context": item.content.text,
                            "output_a": "One.", "output_b": "Two.", "question": "Which?",
                            "system_a": fields["system_a"], "system_b": fields["system_b"]})
                Item.objects.filter(pk=item.pk).update(payload=payload)
            for assignment in Assignment.objects.filter(hit__batch=batch):
                Assignment.objects.filter(pk=assignment.pk).update(answers={
                    item: [answer["fits"], answer["minimal"]] if kind == "likert" else old_vote[answer["better"]]
                    for item, answer in assignment.answers.items()})
        importlib.import_module("designs.migrations.0005_rating_batches_as_designs").forwards(apps, None)
        rate.refresh_from_db()
        pairs.refresh_from_db()
        self.assertEqual((rate.task_type, pairs.task_type), ("design", "design"))
        # As JSON: an alpha of one pair is NaN, which equals nothing, not even itself.
        self.assertEqual(json.dumps((likert_report(rate, samples=50), pairwise_report(pairs, samples=50))),
                         json.dumps(before))
        self.assertEqual(before[1]["outcomes"], {"tie": 1})
        self.assertEqual(before[0]["questions"][1]["alpha"], 1.0)

class MTurkQuestionTests(BaseTestCase):
    def test_timetravel_s_stages_go_out_as_the_generic_question_with_the_story_escaped(self):
        from core.stories import Story
        from designs.stages import workflow_batches
        from designs.task_type import DESIGN
        from reproductions.stories import workflow_start

        story = Story(story_id="s", premise="Maya baked.", initial="She bought flour.",
                      ending=("One <b>.", "Two.", "Three."))
        first = workflow_start([story], name="q")
        worker = Worker.objects.create(provider="inhouse", external_id="w")
        assignment = assignment_claim(batch=first, worker=worker)
        item = assignment.hit.ordered_items()[0]
        assignment_submit(assignment=assignment, worker=worker,
                          raw_answers={f"a-{item.pk}-0": "She found the shop had no flour at all."})
        check = workflow_batches(first)["check"]
        for batch, expected in ((first, ("a-", "One &lt;b&gt;.", "Rewrite the second sentence")),
                                (check, ("She found the shop had no flour at all.", "Sentence 4", "One &lt;b&gt;."))):
            hit = batch.hits.order_by("pk").first()
            question = DESIGN.html_question(hit, hit.ordered_items())
            self.assertIn("externalSubmit", question)
            self.assertNotIn('src="/static', question)  # scripts and styles inlined
            self.assertNotIn("One <b>.", question)
            for text in expected:
                self.assertIn(text, question, f"{batch.name}: {text}")

    def test_the_evaluation_designs_go_out_as_the_generic_question(self):
        from designs.task_type import DESIGN

        cases = [(False, Record(id="r", text="An <b>ending</b>.", fields={"story": "C.", "system": "human"}),
                  ("Does the ending fit the new second sentence?", "An &lt;b&gt;ending&lt;/b&gt;.")),
                 (True, Record(id="p", text="C.", fields={"endings": ["A.", "B."], "system_a": "human",
                                                          "system_b": "original"}), ("Equally bad", "A."))]
        for comparisons, found, expected in cases:
            batch = ratings_batch_create([found], name="q", comparisons=comparisons, items_per_hit=1)
            hit = batch.hits.get()
            question = DESIGN.html_question(hit, hit.ordered_items())
            self.assertIn("externalSubmit", question)
            for text in expected:
                self.assertIn(text, question)
