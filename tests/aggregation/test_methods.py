"""Truth-inference methods through the platform: Dawid-Skene stored as crowd-kit computes it, a planted
spammer's votes weighing less and the comparison naming what changed, known answers never relabeled."""

import json
import random
from io import StringIO

import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene
from django.core.management import call_command

from aggregation.methods import METHODS, infer
from aggregation.models import ItemOutcome
from aggregation.services import batch_aggregate, runs_compare, sanction_suggestions
from designs.semeval import labeling_batch_create
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import spec, voted

ITEMS = 40


def truth(n):
    return int(n % 3 == 0)


class MethodTests(BaseTestCase):
    def make(self, *, spammer_flips=(), gold_wrong=False):
        """A batch of 40 sentences and 4 known answers in one HIT, five honest workers who are right 90% of the
        time (seeded), and a spammer who votes against the truth on `spammer_flips` and with it elsewhere."""
        items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(ITEMS)]
        gold = [spec(f"g{n}", f"Known {n}.", group="gold", gold_answer=n % 2) for n in range(4)]
        batch = batch_publish(batch=labeling_batch_create(name="m", items=items, gold_items=gold,
                                                 gold_rate=0.1, items_per_hit=44, assignments_per_hit=6))
        rng = random.Random(4)
        for name in ("w0", "w1", "w2", "w3", "w4", "spammer"):
            worker = Worker.objects.create(provider="inhouse", external_id=name)
            assignment = assignment_claim(batch=batch, worker=worker)
            answers = {}
            for item in assignment.hit.ordered_items():
                right = int(item.gold_answer) if item.is_gold else truth(int(item.key[1:]))
                if item.is_gold and gold_wrong and item.key in ("g0", "g1"):
                    label = 1 - right  # every worker wrong on two of the known answers
                elif name == "spammer":
                    label = 1 - right if item.key in spammer_flips else right
                else:
                    label = right if rng.random() < 0.9 else 1 - right
                answers[f"a-{item.pk}-0"] = str(label)
            assignment_submit(assignment=assignment, worker=worker, raw_answers=answers)
        return batch

    def test_dawid_skene_through_the_platform_equals_crowd_kit(self):
        batch = self.make()
        run = batch_aggregate(batch=batch, method="dawid-skene", samples=0)
        votes = [(item, worker, label) for answers, worker in
                 batch.hits.get().assignments.values_list("answers", "worker_id")
                 for item, label in zip(answers, voted(answers), strict=True)]
        data = pd.DataFrame([(int(item), worker, label) for item, worker, label in votes],
                            columns=["task", "worker", "label"])
        known = pd.Series({item.pk: int(item.gold_answer) for item in batch.items.filter(is_gold=True)})
        expected = DawidSkene(n_iter=100).fit(data, true_labels=known)
        stored = dict(ItemOutcome.objects.filter(run=run).values_list("item_id", "label"))
        self.assertEqual(stored, {int(item): int(label) for item, label in expected.labels_.items()})
        confidence = dict(ItemOutcome.objects.filter(run=run).values_list("item_id", "confidence"))
        for item, row in expected.probas_.iterrows():
            self.assertAlmostEqual(confidence[int(item)], float(row.max()))
        self.assertEqual(run.method, "dawid-skene")
        self.assertIn("Dawid-Skene", run.rules_text)
        self.assertTrue(all(stat.skill is not None for stat in run.worker_stats.all()))

    def test_a_planted_spammer_weighs_less_and_the_comparison_names_the_changed_items(self):
        flips = {f"s{n}" for n in range(0, ITEMS, 2)}  # wrong on half the sentences: a coin
        batch = self.make(spammer_flips=flips)
        paper = batch_aggregate(batch=batch, samples=0)
        model = batch_aggregate(batch=batch, method="dawid-skene", samples=0)
        skills = dict(model.worker_stats.values_list("worker__external_id", "skill"))
        self.assertEqual(min(skills, key=skills.get), "spammer")
        found = runs_compare(before=paper, after=model)
        changed = {row["key"] for row in found["changes"]}
        # Under the paper's rules a single dissent discards a would-be positive and makes a negative 4/5 (or
        # discards it); the model labels them, with the spammer's vote as the one that lost.
        self.assertTrue(changed)
        spammer_blamed = [row for row in found["changes"]
                          if any(vote["worker"] == "spammer" for vote in row["votes_for_the_losing_label"])]
        self.assertGreaterEqual(len(spammer_blamed), len(changed & flips) - 1)
        self.assertEqual(found["workers"][0]["worker"], "spammer")
        out = StringIO()
        call_command("aggregate", "--compare", str(paper.pk), str(model.pk), stdout=out)
        self.assertIn(f"aggregation {paper.pk} (paper) -> {model.pk} (dawid-skene)", out.getvalue())
        out = StringIO()
        call_command("aggregate", "--compare", str(paper.pk), str(model.pk), "--json", stdout=out)
        self.assertEqual(json.loads(out.getvalue())["changed"], found["changed"])

    def test_the_aggregation_page_shows_skills_and_the_comparison(self):
        batch = self.make(spammer_flips={f"s{n}" for n in range(0, ITEMS, 2)})
        paper = batch_aggregate(batch=batch, samples=0)
        model = batch_aggregate(batch=batch, method="dawid-skene", samples=0)
        project = project_create(name="Methods", user=self.organizer)
        project.batches.add(batch)
        project.aggregations.add(paper, model)
        self.login(self.organizer)
        page = self.client.get(f"/projects/{project.slug}/aggregations/{model.pk}/?compare={paper.pk}")
        self.assertContains(page, "Skill (dawid-skene)")
        changed = runs_compare(before=paper, after=model)["changed"]
        self.assertContains(page, f"<strong>{changed}</strong> of {ITEMS + 4} items change label")
        self.assertContains(page, "spammer (")

    def test_a_sentence_that_only_carries_an_answer_is_inferred_not_clamped(self):
        items = [spec(f"s{n}", f"Sentence {n}.", group="finance", gold_answer=1) for n in range(4)]
        batch = batch_publish(batch=labeling_batch_create(name="c", items=items, items_per_hit=4,
                                                 assignments_per_hit=3))
        for name in ("a", "b", "c"):
            worker = Worker.objects.create(provider="inhouse", external_id=name)
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "0" for item in assignment.hit.ordered_items()})
        run = batch_aggregate(batch=batch, method="majority", samples=0)
        # Everyone said no to sentences whose released answer is yes: the run says no, and measures itself wrong.
        self.assertEqual(set(run.outcomes.values_list("label", flat=True)), {0})
        self.assertEqual(run.summary["gold"]["correct"], 0)

    def test_known_answers_keep_their_label_under_every_method(self):
        batch = self.make(gold_wrong=True)
        known = dict(batch.items.filter(is_gold=True).values_list("pk", "gold_answer"))
        for method in METHODS:
            run = batch_aggregate(batch=batch, method=method, samples=0)
            labels = dict(run.outcomes.filter(item__in=known).values_list("item_id", "label"))
            self.assertEqual(labels, {pk: int(answer) for pk, answer in known.items()}, method)


def test_gold_majority_needs_known_answers_voted_on():
    with pytest.raises(ValueError, match="no known-answer item has votes"):
        infer([("a", "w1", 1), ("a", "w2", 0)], "gold-majority", gold={"z": 1})
    with pytest.raises(ValueError, match="unknown method 'vote'"):
        infer([("a", "w1", 1)], "vote")

    def test_worker_skills_feed_the_sanction_suggestions(self):
        batch = self.make(spammer_flips={f"s{n}" for n in range(0, ITEMS, 2)})
        batch_aggregate(batch=batch, method="dawid-skene", samples=0)
        found = sanction_suggestions(batch=batch, threshold=0.7)
        self.assertEqual([row["worker"].external_id for row in found], ["spammer"])
        self.assertEqual(found[0]["accuracy"], None)  # nothing spot-checked: the skill alone speaks
        self.assertRegex(found[0]["reasons"][0], r"^dawid-skene skill 0\.\d\d$")
        self.login(self.organizer)
        page = self.client.get(f"/review/spot-checks/?batch={batch.pk}")
        self.assertContains(page, "dawid-skene skill", count=1)
        # Blocking by spot checks alone finds nobody; with skills, the spammer only.
        self.client.post("/review/spot-checks/sanction/", {"batch": batch.pk, "threshold": "0.7"})
        self.assertFalse(Worker.objects.filter(blocked=True).exists())
        self.client.post("/review/spot-checks/sanction/", {"batch": batch.pk, "threshold": "0.7", "by_skill": "on"})
        self.assertEqual(list(Worker.objects.filter(blocked=True).values_list("external_id", flat=True)),
                         ["spammer"])
