"""An organizer takes the news sample from an empty database to a downloaded subtask1_train.csv in
headless Chromium, by clicks and uploads only; simulated annotators do the crowd work over HTTP between.

Jobs run as they do on the embedded defaults: in threads of the web process, the page returning at once
and following them until they end.
"""

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings

from accounts import roles
from demo.crowd import SimulatedWorker, SpanAnnotator, run_inhouse, run_spans, take_test_inhouse
from hits.models import Batch
from projects.models import Project
from tests.browser import axe_clean, chromium, log_in, screenshot  # noqa: F401  (fixture)
from tests.fixtures import released_sample
from tests.test_accessibility import PHONE

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
NEWS = settings.SHARED_DIR / "corpora" / "news_sample.jsonl"


def _wait_for_step(page, key, state="done", seconds=120):
    """The project page follows its jobs by itself (live.js reloads it); wait until the step shows `state`
    and the page has stopped following jobs (so no reload is on its way)."""
    page.wait_for_selector(f"#step-{key}.{state}", timeout=seconds * 1000)
    _settled(page)


def _settled(page):
    page.wait_for_selector("#live[data-busy='false']", state="attached", timeout=60_000)


def _shot(page, name, docs=None):
    screenshot(page, f"workspace-{name}", docs=docs)


@override_settings(JOBS_RUNNER="thread")
def test_an_organizer_runs_a_project_from_an_empty_database_to_a_download(chromium, live_server, tmp_path):  # noqa: F811
    if not NEWS.exists():
        pytest.skip(f"the news sample is not at {NEWS}")
    with override_settings(UPLOAD_ROOT=tmp_path / "uploads", EXPORT_ROOT=tmp_path / "exports"):
        _walk(chromium.new_page(), live_server, tmp_path)
        _on_a_phone(chromium, live_server)


def _on_a_phone(browser, live_server):
    """Every organizer page of the finished project, and the pages an invited annotator sees, on a 390 px
    phone: nothing scrolls sideways and axe finds no serious or critical violation."""
    project = Project.objects.get()
    context = browser.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "boss", "pass-word-1", "/dashboard/")
    page.wait_for_selector("h1")
    slug = project.slug
    labels = Batch.objects.get(design_link__version__slug="semeval-subtask1")
    spans = Batch.objects.get(design_link__version__slug="semeval-subtask2")
    run = project.aggregations.order_by("-created").first()
    version = project.versions.get()
    page.goto(f"{live_server.url}/projects/{slug}/people/")
    page.fill("#id_people", "Ada Lovelace, ada@example.org")
    page.get_by_role("button", name="Make invite links").click()
    link = page.input_value("input.invite-link")
    for name, path in [("dashboard", "/dashboard/"), ("projects", "/projects/"), ("project", f"/projects/{slug}/"),
                       ("corpus", f"/projects/{slug}/corpus/"), ("filter", f"/projects/{slug}/filter/"),
                       ("sample", f"/projects/{slug}/sample/"), ("qualification", f"/projects/{slug}/qualification/"),
                       ("batch-new", f"/projects/{slug}/batches/new/"),
                       ("batch-labels", f"/projects/{slug}/batches/{labels.pk}/"),
                       ("batch-spans", f"/projects/{slug}/batches/{spans.pk}/"),
                       ("aggregation", f"/projects/{slug}/aggregations/{run.pk}/"),
                       ("version-new", f"/projects/{slug}/versions/new/"),
                       ("version", f"/projects/{slug}/versions/{version.name}/"),
                       ("people", f"/projects/{slug}/people/"),
                       ("design-new", "/projects/designs/new/"), ("datasets", "/datasets/"),
                       ("token", "/accounts/token/"), ("span-review", "/review/spans/?show=all"),
                       ("spot-checks", "/review/spot-checks/")]:
        page.goto(live_server.url + path)
        _fits(page, f"organizer-{name}", docs="organizer-people-phone" if name == "people" else None)
    context.close()
    # The invited annotator: the join page, then their work list.
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(link)
    _fits(page, "join", docs="annotator-join-phone")
    page.fill("#id_username", "ada")
    page.fill("#id_password1", "a-long-pass-phrase-42")
    page.fill("#id_password2", "a-long-pass-phrase-42")
    page.get_by_role("button", name="Join and start").click()
    page.wait_for_selector("#open-heading")
    _fits(page, "joined-work-list")
    context.close()


def _fits(page, name, docs=None):
    page.wait_for_load_state("networkidle")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    axe_clean(page, f"{name}-phone", docs=docs)
    assert overflow <= 0, f"{name} scrolls sideways by {overflow} px on a 390 px phone"


def _walk(page, live_server, tmp_path):
    organizer = User.objects.create_user("boss", password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))  # the group alone, no staff flag
    log_in(page, live_server, "boss", "pass-word-1", "/projects/")
    page.fill("#id_name", "Counterfactual news")
    page.get_by_role("button", name="Create the project").click()
    page.wait_for_selector("#step-corpus.next")
    _shot(page, "project-new")
    # The simulated crowd are the site's annotators, not members: the organizer opens the work to them.
    page.goto(f"{live_server.url}/projects/counterfactual-news/people/")
    page.check("#id_open_to_site")
    page.get_by_role("button", name="Save who may work").click()
    page.wait_for_selector("#who-may-work:has-text('every annotator of this site')")
    page.goto(f"{live_server.url}/projects/counterfactual-news/")

    page.click("#step-corpus a.button")
    page.set_input_files("#id_file", str(NEWS))
    page.get_by_role("button", name="Upload and ingest").click()
    page.wait_for_selector("#jobs .state.done", timeout=120_000)
    assert "513 documents" in page.inner_text("#jobs")
    page.get_by_role("link", name="← Counterfactual news").click()

    page.click("#step-filter a.button")
    page.check("input[name=profile][value=news]")
    page.click("button:has-text('Run the filter')")
    _wait_for_step(page, "filter")
    assert "candidates of 18,308 sentences" in page.inner_text("#step-filter")

    page.click("#step-sample a.button")
    page.fill("#id_size", "50")
    page.get_by_role("button", name="Preview the balance").click()
    page.wait_for_selector("#preview")
    page.get_by_role("button", name="Keep this sample").click()
    _wait_for_step(page, "sample")

    page.click("#step-qualification a.button")
    page.set_input_files("#id_source", str(released_sample()))
    page.click("button:has-text('Draw the test')")
    page.wait_for_selector("#test-items", timeout=60_000)
    assert page.locator("#test-items tbody tr").count() == 40
    project = Project.objects.get()
    test = project.tests.get()
    workers = [SimulatedWorker(f"careful{n}", 0.97) for n in range(7)]
    take_test_inhouse(test, workers, seed=2)
    page.get_by_role("link", name="← Counterfactual news").click()

    page.click("#step-labeling a.button")
    page.fill("#id_items_per_hit", "10")
    page.fill("#id_budget", "100")
    page.fill("#id_gold_count", "20")
    page.fill("#id_gold_rate", "0.1")
    page.wait_for_function("document.getElementById('estimate').textContent.includes('in provider fees')")
    _shot(page, "batch-new")
    page.get_by_role("button", name="Create the batch").click()
    page.wait_for_selector("#step-labeling a:has-text('Publish')", timeout=60_000)
    _settled(page)
    page.click("#step-labeling a:has-text('Publish')")
    _shot(page, "publish")
    page.check("#id_confirm")
    page.click("button:has-text('Publish for')")
    page.wait_for_selector(".state.published", timeout=60_000)
    batch = Batch.objects.get(design_link__version__slug="semeval-subtask1")
    run_inhouse(batch, workers, seed=3)

    page.reload()
    page.check("#select-all")
    page.fill("#review-feedback", "Thank you.")
    page.get_by_role("button", name="Approve the ticked").click()
    page.wait_for_selector("text=No submitted work waits for review", timeout=60_000)
    page.get_by_role("button", name="Aggregate the votes").click()
    _wait_for_step(page, "aggregation")
    page.click("#step-aggregation a:has-text('Aggregation')")
    page.wait_for_selector("#outcomes")
    _shot(page, "aggregation", docs="organizer-aggregation")
    # The span batch's cost as its numbers change, as on the labeling batch's form: twice the annotators, twice the
    # assignments.
    page.wait_for_function("document.getElementById('estimate').textContent.includes('in provider fees')")
    one = page.inner_text("#estimate")
    page.fill("#id_assignments_per_hit", "2")
    page.wait_for_function(f"document.getElementById('estimate').textContent !== {one!r}")
    hits, assignments = (int(part.split()[0].replace(",", "")) for part in one.split(":")[0].split(", "))
    assert page.inner_text("#estimate").startswith(f"{hits:,} HITs, {2 * assignments:,} assignments: ")
    page.fill("#id_assignments_per_hit", "1")
    page.get_by_role("button", name="Create the span batch").click()
    page.wait_for_selector("#step-spans a:has-text('Publish')", timeout=60_000)
    _settled(page)
    page.click("#step-spans a:has-text('Publish')")
    page.check("#id_confirm")
    page.click("button:has-text('Publish for')")
    page.wait_for_selector(".state.published", timeout=60_000)
    span_batch = Batch.objects.get(design_link__version__slug="semeval-subtask2")
    run_spans(span_batch, [SpanAnnotator(worker.name, worker.accuracy) for worker in workers], {}, seed=4)

    page.goto(f"{live_server.url}/projects/counterfactual-news/")
    page.click("#step-span-review a.button")
    page.click("table a >> nth=0")
    while page.locator("#review-form").count():
        flagged = "flagged this sentence" in page.inner_text("main")
        page.click("#review-remove" if flagged else "#review-accept")
        page.wait_for_load_state()
    page.goto(f"{live_server.url}/projects/counterfactual-news/")
    _wait_for_step(page, "span-review")

    page.click("#step-version a.button")
    page.get_by_role("button", name="Build the version").click()
    _wait_for_step(page, "version")
    page.click("#step-version a:has-text('counterfactual-news-v1')")
    page.get_by_role("button", name="Export every format").click()
    page.wait_for_selector("#files a:has-text('subtask1_train.csv')", timeout=60_000)
    _shot(page, "version", docs="researcher-version")
    with page.expect_download() as download:
        page.click("#files a:has-text('subtask1_train.csv')")
    content = Path(download.value.path()).read_bytes().decode("utf-8")
    assert content.startswith("sentenceID,gold_label,sentence\r\n")
    assert content.endswith("\r\n")  # a version built here ends its last row with a line end
    rows = content.removesuffix("\r\n").split("\r\n")[1:]
    version = project.versions.get()
    assert len(rows) == version.sentences.filter(split="train").count() > 0

    page.goto(f"{live_server.url}/projects/counterfactual-news/")
    _shot(page, "project-done", docs="organizer-project-done")
    states = page.eval_on_selector_all("#steps > li", "items => items.map(item => item.className)")
    assert states == ["done"] * 9, states
