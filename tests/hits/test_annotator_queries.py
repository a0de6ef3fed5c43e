"""What one annotator's request costs the database: the work list, a claim, the task page, a draft and a submit
each read a fixed, small number of queries, the same for a HIT of 25 sentences as for one of 5, for the SemEval
task and for a design file's page (issue 34: launch day is many of these at once)."""

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from designs.items import Record
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment
from hits.services import batch_publish, worker_for_user
from tests.base import BaseTestCase
from tests.hits.helpers import make_batch

DESIGN = """title: Sentiment
annotation_schemes:
  - annotation_type: radio
    name: sentiment
    description: How does the text feel?
    labels: [positive, negative]
    label_requirement: {required: true}
hits: {items_per_hit: SIZE, assignments_per_hit: 2}
"""
# The most each endpoint may read, whatever the HIT's size, as measured on SQLite and PostgreSQL (no slack: a
# request that starts to read one query more fails here). The page and the submit read which design and stage
# the batch was made from; SemEval Subtask 1 is a design file (semeval-subtask1.yaml) like any other. The HIT's
# body is rendered once and kept (a reload, or the HIT's other workers, read neither its items nor its design);
# the work list's count of open HITs is kept a few seconds (the first visit counts them). Deciding which projects'
# work the annotator may see (the work list, a claim) reads their memberships and the site's projects, two queries;
# a page's navigation reads their roles in projects, one; the work list says each batch in its design's own words
# (title, description, what its items are called), one query for all its batches. A submit raises the batch's
# work_version (one UPDATE), so that figures kept of the work know they are out of date without counting it. A
# design's page reads whether the batch shows a model's suggestions, one query, for they differ by worker and are
# never in the kept body (designs.suggestions; their answers only when it does).
DESIGNED = {"work list": 16, "claim": 16, "task page": 9, "task page again": 7, "draft": 6, "submit": 15}
SEMEVAL = DESIGNED


class AnnotatorQueryTests(BaseTestCase):
    def counted(self, batch, fields):
        """Queries of each annotator endpoint on one HIT of `batch`, as a logged-in annotator's browser calls them."""
        client = Client()
        client.force_login(self.annotator)
        found = {}

        def run(name, call):
            with CaptureQueriesContext(connection) as captured:
                response = call()
            self.assertLess(response.status_code, 400, f"{name}: {response.content[:300]}")
            found[name] = len(captured)
            return response

        run("work list", lambda: client.get(reverse("hits:work_list")))
        claimed = run("claim", lambda: client.post(reverse("hits:claim", args=[batch.pk])))
        assignment = Assignment.objects.get(pk=int(claimed.url.rstrip("/").split("/")[-1]))
        items = assignment.hit.ordered_items()
        run("task page", lambda: client.get(claimed.url))
        run("task page again", lambda: client.get(claimed.url))
        run("draft", lambda: client.post(reverse("hits:draft", args=[assignment.pk]), fields(items[:1])))
        run("submit", lambda: client.post(reverse("hits:submit", args=[assignment.pk]), fields(items)))
        assignment.refresh_from_db()
        self.assertEqual(assignment.state, "submitted")
        return found

    def assertFixed(self, small, large, most):
        self.assertEqual(small, large, "a query count grows with the HIT's items")
        for name, count in large.items():
            self.assertLessEqual(count, most[name], f"{name} reads {count} queries (at most {most[name]})")

    def test_the_semeval_task_reads_a_fixed_number_of_queries_per_request(self):
        worker_for_user(self.annotator)

        def fields(items):
            return {f"a-{item.pk}-0": "1" for item in items}

        counts = [self.counted(batch_publish(batch=make_batch(count=size, name=f"s{size}", items_per_hit=size)),
                               fields) for size in (5, 25)]
        self.assertFixed(*counts, SEMEVAL)

    def test_a_design_file_s_task_reads_a_fixed_number_of_queries_per_request(self):
        worker_for_user(self.annotator)

        def fields(items):
            return {f"a-{item.pk}-0": "positive" for item in items}

        counts = []
        for size in (5, 25):
            version = design_version_save(source=DESIGN.replace("SIZE", str(size)), slug=f"sentiment-{size}")
            records = [Record(id=f"r{size}-{n}", text=f"Text <b>{n}</b>.") for n in range(size)]
            batch = batch_publish(batch=design_batch_create(version=version, records=records, name=f"d{size}"))
            counts.append(self.counted(batch, fields))
        self.assertFixed(*counts, DESIGNED)
