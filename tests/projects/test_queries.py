"""The organizer's pages read a fixed number of queries, however many batches a project has."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from projects.services import project_create
from releases.services import dataset_from_aggregation
from tests.base import BaseTestCase
from tests.hits.helpers import items


class QueryCountTest(BaseTestCase):
    def setUp(self):
        self.login(self.organizer)
        self.project = project_create(name="Counted", user=self.organizer)
        self.voters = [worker_for_user(self._user(f"voter{n}", None)) for n in range(5)]

    def add_batch(self, n):
        batch = batch_publish(batch=labeling_batch_create(name=f"b{n}", items=items(10, prefix=f"b{n}-")))
        for worker in self.voters:
            assignment = assignment_claim(batch=batch, worker=worker)
            assignment_submit(assignment=assignment, worker=worker, raw_answers={
                f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
        run = batch_aggregate(batch=batch, samples=100)
        self.project.batches.add(batch)
        self.project.aggregations.add(run)
        self.project.versions.add(dataset_from_aggregation(run=run, name=f"v{n}"))
        return batch

    def queries(self, url):
        with CaptureQueriesContext(connection) as captured:
            response = self.client.get(url)
        self.assertEqual(response.status_code, 200, url)
        return len(captured)

    def test_the_dashboard_and_project_pages_do_not_grow_with_batches(self):
        first = self.add_batch(0)
        self.add_batch(1)
        urls = ["/dashboard/", "/projects/", "/projects/counted/", "/projects/counted/status.json",
                f"/projects/counted/batches/{first.pk}/", "/datasets/"]
        before = {url: self.queries(url) for url in urls}
        for n in range(2, 8):
            self.add_batch(n)
        after = {url: self.queries(url) for url in urls}
        self.assertEqual(after, before)
        self.assertLess(before["/dashboard/"], 40, before)
        self.assertLess(before["/projects/counted/"], 30, before)
