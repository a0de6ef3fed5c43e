"""Every page that shows an aggregation's outcomes reads them from one selector: the counts agree between the
project's steps, the aggregation page and its span form, add up to the batch's items, and the wording follows
the rule and the votes actually used (never a fixed "five people")."""

import re

from aggregation.services import batch_aggregate
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from projects.services import project_create
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch


class OutcomeCountsTest(BaseTestCase):
    def setUp(self):
        self.project = project_create(name="Six sentences", slug="six")
        self.batch = batch_publish(batch=make_batch(count=6, items_per_hit=3, assignments_per_hit=1))
        self.project.batches.add(self.batch)
        worker = Worker.objects.create(provider="inhouse", external_id="w1")
        place = assignment_claim(batch=self.batch, worker=worker)
        first, second, third = place.hit.ordered_items()
        assignment_submit(assignment=place, worker=worker, raw_answers={
            f"a-{first.pk}-0": "1", f"a-{second.pk}-0": "1", f"a-{third.pk}-0": "0"})
        self.login(self.organizer)

    def _pages(self, method):
        run = batch_aggregate(batch=self.batch, method=method, samples=0)
        self.project.aggregations.add(run)
        detail = self.client.get(f"/projects/{self.project.slug}/").content.decode()
        page = self.client.get(f"/projects/{self.project.slug}/aggregations/{run.pk}/").content.decode()
        return run, detail, page

    def test_majority_counts_agree_everywhere_and_add_up(self):
        run, detail, page = self._pages("majority")
        self.assertIn(f"aggregation {run.pk} (majority): 2 positive, 1 negative, 3 pending of 6 items", detail)
        rows = dict(re.findall(r'<tr id="outcome-([\w-]+)"><td>[^<]*</td><td class="num">(\d+)</td>', page))
        self.assertEqual(rows, {"positive": "2", "negative": "1", "pending": "3"})
        self.assertIn('<td class="num" id="outcome-total">6</td>', page)
        self.assertNotIn("stays pending", page)  # the vote-count rule is the paper's, not the majority's
        self.assertIn("2 sentences that majority aggregation of their votes called counterfactual go to one "
                      "annotator each", page)
        self.assertNotIn("five", page)
        self.assertNotIn("[, ]", page)

    def test_the_papers_rules_say_what_they_need(self):
        run, detail, page = self._pages("paper")
        # One vote a sentence: the rules need five, so every voted sentence is pending too.
        self.assertIn(f"aggregation {run.pk} (paper): 0 positive, 0 negative, 6 pending of 6 items", detail)
        self.assertIn("pending (fewer than 5 votes)", page)
        self.assertIn("the rules need 5 votes a sentence: a sentence with fewer votes stays pending", page)
        self.assertIn("0 sentences that all 5 of their annotators called counterfactual go to", page)
        self.assertNotIn("[, ]", page)
