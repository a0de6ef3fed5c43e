"""Each role logs in with the browser and sees its own pages, and only those."""

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from accounts import roles
from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from releases.services import dataset_from_aggregation
from tests.browser import browser_page, log_in  # noqa: F401  (fixture)
from tests.hits.helpers import items

pytestmark = pytest.mark.django_db(transaction=True)


def _user(name, role=None, **flags):
    user = User.objects.create_user(name, password="pass-word-1", **flags)
    if role:
        user.groups.add(roles.group(role))
    return user


@pytest.fixture
def site(tmp_path):
    batch = batch_publish(batch=labeling_batch_create(name="labelled news", items=items(10),
                                             budget=100))
    for n in range(5):
        worker = worker_for_user(_user(f"voter{n}", roles.ANNOTATOR))
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": str(int(item.key[1:]) % 2) for item in assignment.hit.ordered_items()})
    dataset_from_aggregation(run=batch_aggregate(batch=batch, seed=1), name="news-v1")
    batch_publish(batch=labeling_batch_create(name="open work", items=items(10, prefix="o")))
    _user("boss", is_staff=True)
    _user("ann", roles.ANNOTATOR)
    _user("res", roles.RESEARCHER)
    with override_settings(EXPORT_ROOT=tmp_path):
        yield


def _nav(page):
    return page.inner_text("header nav")


def test_each_role_sees_its_pages_and_not_the_others(browser_page, live_server, site, tmp_path):  # noqa: F811
    page = browser_page
    log_in(page, live_server, "boss", "pass-word-1", "/")
    page.wait_for_url(f"{live_server.url}/dashboard/")
    assert all(name in _nav(page) for name in ("Dashboard", "Span review", "Spot checks", "Work", "Datasets"))
    assert "labelled news" in page.inner_text("#batches") and "open work" in page.inner_text("#batches")
    assert "Is this sentence counterfactual? · inhouse" in page.inner_text("#batches")  # what the batch asks
    assert "news-v1" in page.inner_text("#versions")
    plots = page.locator("img[alt^='Worker quality']")
    assert plots.count() == 1 and page.evaluate("img => img.naturalWidth", plots.element_handle()) > 0
    page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
    page.click("#nav-review")
    assert page.inner_text("h1") == "Span review"
    page.click("header form button")  # log out

    log_in(page, live_server, "ann", "pass-word-1", "/")
    page.wait_for_url(f"{live_server.url}/work/")
    assert "Dashboard" not in _nav(page) and "Datasets" not in _nav(page)
    assert "open work" in page.inner_text("body")
    assert "0.00 USD earned" in page.inner_text("#pay")
    assert page.title() == "Your work · crowdset"
    for path in ("/dashboard/", "/datasets/", "/review/spans/", "/review/spot-checks/"):
        assert page.goto(f"{live_server.url}{path}").status == 403
    page.goto(f"{live_server.url}/work/")
    page.click("header form button")

    log_in(page, live_server, "res", "pass-word-1", "/")
    page.wait_for_url(f"{live_server.url}/datasets/")
    assert "Work" not in _nav(page) and "Dashboard" not in _nav(page)
    assert "news-v1" in page.inner_text("#version-news-v1 h2")
    page.click("#version-news-v1 button:has-text('Export')")
    page.wait_for_selector("#version-news-v1 a:has-text('subtask1_train.csv')")
    with page.expect_download() as download:
        page.click("#version-news-v1 a:has-text('subtask1_train.csv')")
    assert download.value.path().read_bytes().startswith(b"sentenceID,gold_label,sentence")
    for path in ("/dashboard/", "/work/", "/review/spans/"):
        assert page.goto(f"{live_server.url}{path}").status == 403
