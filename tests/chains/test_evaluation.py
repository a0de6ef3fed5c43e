"""Human evaluation: Likert ratings and pairwise comparisons through the platform, their reports by hand, and
ordinal alpha against the krippendorff package."""

import krippendorff
import numpy as np
import pytest

from aggregation.maths import ordinal_alpha, ordinal_alpha_interval
from chains.evaluation import likert_report, pairwise_report
from core.items import PairItem, RatingItem
from hits.models import Worker
from hits.services import CrowdError, ItemSpec, assignment_claim, assignment_submit, batch_create, batch_publish
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
        items = [ItemSpec(key=f"{system}:{n}", group=system, payload=RatingItem(
            item_id=f"{system}{n}", context="A story.", output=f"Ending {system} {n}.", questions=("Fits?", "Minimal?"),
            scale=3, system=system)) for system in ("human", "original") for n in range(2)]
        batch = batch_publish(batch=batch_create(name="rate", task_type="likert", items=items, items_per_hit=4,
                                                 assignments_per_hit=2))
        given = {"human": (3, 2), "original": (1, 3)}
        shift = {0: 0, 1: -1}  # the second rater is one point harsher on "Fits?" for human endings
        with self.assertRaisesMessage(CrowdError, "rate text 1, question 2"):
            self.answer(batch, self.workers[0], lambda item: {f"rate-{item.pk}-1": "2", f"rate-{item.pk}-2": "9"})
        for rater in (0, 1):
            self.answer(batch, self.workers[rater], lambda item, rater=rater: {
                f"rate-{item.pk}-1": str(given[item.content.system][0] + (shift[rater] if item.content.system ==
                                                                          "human" else 0)),
                f"rate-{item.pk}-2": str(given[item.content.system][1])})
        found = likert_report(batch, samples=100)
        fits, minimal = found["questions"]
        self.assertEqual(fits["mean"], {"human": 2.5, "original": 1.0})
        self.assertEqual(minimal["mean"], {"human": 2.0, "original": 3.0})
        data = np.array([[3, 3, 1, 1], [2, 2, 1, 1]], dtype=float)
        self.assertAlmostEqual(fits["alpha"], krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                                                 value_domain=[1, 2, 3]))
        self.assertEqual(minimal["alpha"], 1.0)

    def test_pairwise_answers_give_wins_ties_and_alpha(self):
        items = [ItemSpec(key=f"p{n}", payload=PairItem(item_id=f"p{n}", context="A story.", output_a="One.",
                                                        output_b="Two.", question="Which is better?",
                                                        system_a=a, system_b=b))
                 for n, (a, b) in enumerate((("human", "original"), ("original", "human"), ("human", "original")))]
        batch = batch_publish(batch=batch_create(name="pairs", task_type="pairwise", items=items, items_per_hit=3,
                                                 assignments_per_hit=2))
        with self.assertRaisesMessage(CrowdError, "pairs 1, 2, 3 have no answer yet"):
            self.answer(batch, self.workers[0], lambda item: {f"pair-{item.pk}": "c"})
        votes = {"p0": ("a", "a"), "p1": ("b", "both_good"), "p2": ("both_bad", "both_bad")}
        for rater in (0, 1):
            self.answer(batch, self.workers[rater],
                        lambda item, rater=rater: {f"pair-{item.pk}": votes[item.key][rater]})
        found = pairwise_report(batch, samples=100)
        # p0: A (human) wins; p1: "b" and "both_good" tie; p2: equally bad.
        self.assertEqual(found["outcomes"], {"both_bad": 1, "human": 1, "tie": 1})
        counts = np.array([[2, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 2]])
        self.assertAlmostEqual(found["alpha"], krippendorff.alpha(value_counts=counts,
                                                                  level_of_measurement="nominal"))


class MTurkQuestionTests(BaseTestCase):
    def test_every_new_task_type_has_a_self_contained_mturk_question(self):
        from chains.task_types import LIKERT, PAIRWISE, STORY_EDIT, STORY_WRITE
        from core.items import StoryItem

        story = StoryItem(story_id="s", premise="Maya baked.", initial="She bought flour.",
                          ending=("One <b>.", "Two.", "Three."), counterfactual="She had no flour at all.")
        cases = [
            (STORY_WRITE, "story-write", story, ("cf-", "cond-", "One &lt;b&gt;.")),
            (STORY_EDIT, "story-edit", story, ("check-", "rewrite-", "end-", "She had no flour at all.")),
            (LIKERT, "likert", RatingItem(item_id="r", context="C.", output="O.", questions=("Fits?",)),
             ("rate-", "Fits?")),
            (PAIRWISE, "pairwise", PairItem(item_id="p", context="C.", output_a="A.", output_b="B.",
                                            question="Which?"), ("pair-", "both_bad")),
        ]
        for task_type, name, payload, expected in cases:
            batch = batch_create(name=name, task_type=name, items=[ItemSpec(key="k", payload=payload)],
                                 items_per_hit=1, assignments_per_hit=1)
            hit = batch.hits.get()
            question = task_type.html_question(hit, hit.ordered_items())
            self.assertIn("externalSubmit", question)
            self.assertNotIn('src="/static', question)  # scripts and styles inlined
            for text in expected:
                self.assertIn(text, question, f"{name}: {text}")
