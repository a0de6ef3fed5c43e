"""A project's pages do the same work for 500 items as for 10,000: the same queries, and (within a margin for
numbers with more digits) the same number of Python calls. 500 items is the smallest project whose lists are full
(100 assignments waiting for review, 20 HITs on an API page of 20), so that what is compared is the project's size,
not how full a list is. The figures the pages show were computed by a job; lists are read a page at a time. Speed
itself is measured by bench/scale_bench.py, not here."""

import cProfile
import pstats

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.scale_bench import fill
from tests.base import page_after_jobs

PAGES = ("/projects/{project}/", "/projects/{project}/status.json", "/projects/{project}/batches/{batch}/",
         "/dashboard/", "/api/batches/", "/api/hits/?batch={batch}&limit=20",
         "/api/assignments/?batch={batch}&limit=20", "/api/projects/")


def _work(client, url):
    """(queries, Python calls) of one request, after one to warm the caches."""
    client.get(url)
    profile = cProfile.Profile()
    with CaptureQueriesContext(connection) as queries:
        profile.enable()
        response = client.get(url)
        profile.disable()
    assert response.status_code == 200, url
    return len(queries), pstats.Stats(profile).total_calls


@pytest.mark.django_db
def test_the_pages_cost_the_same_for_500_items_and_for_10000():
    small, small_batch, organizer = fill(500, name="Small")
    big, big_batch, _ = fill(10_000, organizer=organizer, name="Big")
    client = Client()
    client.force_login(organizer)
    for project in (small, big):  # the figures job, as the page's first view starts it
        page_after_jobs(client, f"/projects/{project.slug}/")
    found = {}
    for page in PAGES:
        found[page] = [_work(client, page.format(project=project.slug, batch=batch.pk))
                       for project, batch in ((small, small_batch), (big, big_batch))]
    for page, ((queries, calls), (big_queries, big_calls)) in found.items():
        assert big_queries == queries, f"{page}: {queries} queries for 500 items, {big_queries} for 10,000"
        assert big_calls < calls * 1.25, f"{page}: {calls} calls for 500 items, {big_calls} for 10,000"
    # The big project's page shows its figures, computed by the job.
    page = client.get(f"/projects/{big.slug}/").content.decode()
    assert "counterfactual: alpha" in page


@pytest.mark.django_db
def test_the_export_reads_the_answers_once_in_each_order_whatever_its_formats(tmp_path):
    """Potato's records and Label Studio's tasks are written from the two readings the labels and the answers make
    (item by item, and in the order the work came in), not from readings of their own: every format costs the
    queries of one, and one more (the scores of Label Studio's predictions)."""
    from designs.export import FORMATS, export_batch

    _, batch, _ = fill(500, name="Export")

    def queries(formats):
        with CaptureQueriesContext(connection) as found:
            export_batch(batch=batch, out=tmp_path / "-".join(formats), formats=formats)
        return len(found)

    one, every = queries(("csv",)), queries(FORMATS)
    assert every == one + 1, f"{one} queries for the csv format, {every} for every format"
