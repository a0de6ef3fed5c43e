"""The annotator's pages in headless Chromium, used as a worker would: keys on the sentence they are on,
drafts through reloads and devices, a claim that runs out, submit-and-next, spans by keyboard only, the
MTurk page's preview and submit address, and browsers that keep nothing."""

import time

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from accounts import roles
from annotation.models import SpanAnnotation
from designs.semeval import labeling_batch_create, spans_batch_create
from hits.models import Assignment, Hit
from hits.services import batch_publish
from tests.browser import log_in, screenshot
from tests.hits.helpers import spec, voted

pytestmark = pytest.mark.django_db(transaction=True)

ENGLISH = "If the bill had passed, prices would have fallen."
FLAGGED = "If approved, it would be the first such drug."


def _annotator(name="worker"):
    user = User.objects.create_user(name, password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    return user


def _labeling(count=9, hits=1, **options):
    items = [spec(f"s{n}", f"Sentence number {n + 1} of the batch.", group="finance") for n in range(count * hits)]
    return batch_publish(batch=labeling_batch_create(name="labels", items=items, items_per_hit=count,
                                            assignments_per_hit=1, **options))


def _take(page, live_server, user="worker"):
    log_in(page, live_server, user, "pass-word-1", "/work/")
    page.click("button:has-text('Take a HIT')")
    _ready(page)


def _ready(page):
    """The task page with its script running (the form is there before the script has started)."""
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")


def _radio(page, n, value):
    return page.locator(".task-item").nth(n).locator(f"input[value='{value}']")


def test_keys_answer_the_sentence_clicked_or_focused_and_the_view_follows(browser_page, live_server):
    _labeling()
    _annotator()
    page = browser_page
    page.set_viewport_size({"width": 1000, "height": 600})
    _take(page, live_server)
    items = page.locator(".task-item")
    items.nth(4).locator(".cf-text").click()  # sentence 5, far down the page
    page.keyboard.press("y")
    expect(_radio(page, 4, "1")).to_be_checked()
    assert not _radio(page, 0, "1").is_checked() and not _radio(page, 0, "0").is_checked()
    # The next sentence is the current one now: highlighted, focused and on screen, and the keys go there.
    expect(items.nth(5)).to_have_class("task-item design-item current")
    expect(items.nth(5)).to_be_focused()
    box = items.nth(5).bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 600
    # With focus on sentence 3's radio, a key answers sentence 3.
    _radio(page, 2, "1").focus()
    page.keyboard.press("n")
    expect(_radio(page, 2, "0")).to_be_checked()
    expect(page.locator("#cf-progress")).to_have_text("2 of 9 answered")


def _wait_for_draft(batch, answers, seconds=10):
    """The HIT's draft once the server holds `answers` answers (saves go out half a second after a change)."""
    deadline = time.monotonic() + seconds
    while True:
        assignment = Assignment.objects.get(hit__batch=batch)
        given = {key for key in (assignment.draft or {}) if key.startswith("a-")}
        if len(given) == answers or time.monotonic() > deadline:
            assert len(given) == answers, assignment.draft
            return assignment
        time.sleep(0.1)


def test_a_reload_another_device_and_back_find_every_answer(chromium, live_server):
    batch = _labeling()
    _annotator()
    page = chromium.new_page()
    _take(page, live_server)
    for key in "ynyn":
        page.keyboard.press(key)
    _wait_for_draft(batch, 4)
    page.reload()
    expect(page.locator("#cf-progress")).to_have_text("4 of 9 answered")
    assert [_radio(page, n, "1").is_checked() for n in range(4)] == [True, False, True, False]
    assert [_radio(page, n, "0").is_checked() for n in range(4)] == [False, True, False, True]
    # The keys carry on where the answers stop.
    page.keyboard.press("y")
    expect(_radio(page, 4, "1")).to_be_checked()
    expect(page.locator("#task-saved")).to_contain_text("Saved")
    assignment = _wait_for_draft(batch, 5)
    # Away and Back: the counter and the submit button agree with the answers shown.
    page.goto(f"{live_server.url}/work/")
    assert "your answers so far are saved" in page.inner_text("main")
    page.go_back()
    expect(page.locator("#cf-progress")).to_have_text("5 of 9 answered")
    # Another device (a fresh browser context): "Go on with HIT 1" finds the same answers.
    other = chromium.new_context().new_page()
    log_in(other, live_server, "worker", "pass-word-1", "/work/")
    other.click("button:has-text('Go on with HIT 1')")
    expect(other.locator("#cf-progress")).to_have_text("5 of 9 answered")
    assert Assignment.objects.filter(hit__batch=batch).count() == 1  # the one held, not a second HIT
    for _ in range(4):
        other.keyboard.press("n")
    expect(other.locator("#cf-submit")).to_be_enabled()
    other.click("#cf-submit")
    other.wait_for_url(f"{live_server.url}/work/")
    assignment.refresh_from_db()
    assert assignment.state == "submitted" and assignment.draft is None
    items = assignment.hit.ordered_items()
    assert voted({str(item.pk): assignment.answers[str(item.pk)] for item in items}) == [1, 0, 1, 0, 1, 0, 0, 0, 0]


@pytest.mark.slow  # a fault run of hundreds of HITs or a timer running out: CI runs it
def test_a_claim_that_runs_out_warns_first_then_says_what_happened_and_offers_the_next(browser_page, live_server):
    batch = _labeling(assignment_duration=12)  # the warning comes with a quarter of the time left
    _annotator()
    page = browser_page
    _take(page, live_server)
    page.keyboard.press("y")
    expect(page.locator("#task-time")).to_contain_text("Time left 0:")
    warning = page.locator("#task-warning")
    expect(warning).to_be_visible(timeout=15000)
    assert "submit soon" in warning.inner_text()
    # More time, once: the warning goes and the clock moves on.
    page.click("#task-extend")
    expect(warning).to_be_hidden()
    assignment = Assignment.objects.get(hit__batch=batch)
    assert assignment.extensions == 1
    expect(warning).to_be_visible(timeout=15000)
    screenshot(page, "labeling-time-warning", full_page=False)
    expect(page.locator("#ended")).to_be_visible(timeout=15000)
    assert "ran out" in page.inner_text("#ended")
    assignment.refresh_from_db()
    assert assignment.state == "expired" and assignment.deadline < timezone.now()
    page.click("#take-next")
    _ready(page)
    assert Assignment.objects.filter(hit__batch=batch, state="claimed").count() == 1


def test_submit_and_next_lands_on_a_new_hit(browser_page, live_server):
    batch = _labeling(hits=2)
    _annotator()
    page = browser_page
    _take(page, live_server)
    assert "HIT 1 of labels" in page.inner_text("main")
    for _ in range(9):
        page.keyboard.press("y")
    page.click("#cf-submit-next")
    _ready(page)
    assert "HIT 2 of labels" in page.inner_text("main")
    assert "your answers to HIT 1 are saved" in page.inner_text(".messages")
    assert page.inner_text("#cf-progress") == "0 of 9 answered"
    states = dict(Assignment.objects.filter(hit__batch=batch).values_list("hit__index", "state"))
    assert states == {0: "submitted", 1: "claimed"}


def test_a_span_marked_by_keyboard_only_is_stored_as_by_mouse(browser_page, live_server):
    batch = batch_publish(batch=spans_batch_create(
        name="spans", items=[spec("a", ENGLISH), spec("b", FLAGGED)], items_per_hit=2, assignments_per_hit=1))
    _annotator()
    page = browser_page
    _take(page, live_server)
    order = page.locator(".design-item .design-text").all_inner_texts()
    english, flagged = order.index(ENGLISH), order.index(FLAGGED)

    def go_to(n):
        while page.evaluate("crowdsetTask.current") < n:
            page.keyboard.press("j")
        while page.evaluate("crowdsetTask.current") > n:
            page.keyboard.press("k")

    def tab_to(selector):
        for _ in range(30):
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                return
            page.keyboard.press("Tab")
        raise AssertionError(f"Tab never reached {selector}")

    go_to(english)
    page.keyboard.press("y")  # yes: the words to mark show
    scope = page.locator(".task-item").nth(english)
    tab_to(".span-text")
    page.keyboard.press("ArrowRight")  # the first word
    for _ in range(4):
        page.keyboard.press("Shift+ArrowRight")  # "If the bill had passed"
    page.keyboard.press("a")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # "prices"
    for _ in range(2):
        page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("c")  # "prices would have": one word short
    expect(scope.locator(".span-list")).to_contain_text("consequent: prices would have Remove")
    page.keyboard.press("Shift+ArrowRight")  # a consequent marked again replaces the first (one per label)
    for _ in range(3):
        page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("c")
    expect(scope.locator(".span-list li")).to_have_count(2)
    listed = scope.locator(".span-list").inner_text()
    assert "antecedent: If the bill had passed" in listed and "consequent: prices would have fallen" in listed

    go_to(flagged)
    page.keyboard.press("n")  # not counterfactual: the optional reason shows
    go_to(flagged)
    tab_to(".scheme-text input")
    page.keyboard.type("A drug that may still be approved: a real possibility.")
    tab_to("#cf-submit")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    stored = {annotation.text: annotation for annotation in SpanAnnotation.objects.filter(item__batch=batch)}
    marked = stored[ENGLISH]
    # The same offsets as the mouse test in test_span_pages.
    assert (marked.antecedent_start, marked.antecedent_end) == (0, ENGLISH.index(",") - 1)
    assert marked.antecedent == "If the bill had passed" and marked.consequent == "prices would have fallen"
    assert stored[FLAGGED].flagged and stored[FLAGGED].flag_reason.startswith("A drug that may still")


def test_the_mturk_page_keeps_preview_answers_takes_keys_at_once_and_refuses_strange_submit_addresses(
        browser_page, live_server):
    batch = labeling_batch_create(name="mt", provider="mturk",
                         items=[spec(f"s{n}", f"Sentence {n}.") for n in range(3)])
    hit = batch.hits.get()
    Hit.objects.filter(pk=hit.pk).update(provider_hit_id="HIT1")  # as published
    page = browser_page
    base = f"{live_server.url}/mturk/hits/{hit.pk}/?hitId=HIT1"
    page.goto(f"{base}&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE")
    for key in "yn":  # no click into the frame first
        page.keyboard.press(key)
    expect(page.locator("#cf-progress")).to_have_text("2 of 3 answered")
    assert page.is_disabled("#cf-submit")
    page.goto(f"{base}&assignmentId=3ABC&workerId=AW&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
    expect(page.locator("#cf-progress")).to_have_text("2 of 3 answered")  # the preview's answers, kept on accept
    page.keyboard.press("y")
    expect(page.locator("#cf-submit")).to_be_enabled()
    assert page.get_attribute("#cf-task", "action") == "https://workersandbox.mturk.com/mturk/externalSubmit"
    for bad in ("javascript:alert(document.cookie)//", "http://workersandbox.mturk.com", "https://evil.example",
                "https://user:pw@www.mturk.com"):
        page.goto(f"{base}&assignmentId=3ABC&workerId=AW&turkSubmitTo={bad}")
        for key in "yny":
            page.keyboard.press(key)
        assert page.get_attribute("#cf-task", "action") == "https://www.mturk.com/mturk/externalSubmit", bad
        assert page.is_disabled("#cf-submit"), bad
        assert "cannot send your answers" in page.inner_text("#cf-note"), bad


BLOCK_STORAGE = """Object.defineProperty(window, "localStorage", {get() {
    throw new DOMException("The operation is insecure.", "SecurityError"); }});"""


def test_pages_work_where_the_browser_blocks_storage(chromium, live_server):
    batch = _labeling(count=3)
    _annotator()
    context = chromium.new_context()
    context.add_init_script(BLOCK_STORAGE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _take(page, live_server)
    for key in "yn":
        page.keyboard.press(key)
    expect(page.locator("#task-saved")).to_contain_text("Saved")  # the server keeps the draft
    page.reload()
    expect(page.locator("#cf-progress")).to_have_text("2 of 3 answered")
    page.keyboard.press("y")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    assert Assignment.objects.get(hit__batch=batch).state == "submitted"
    mturk = labeling_batch_create(name="mt", provider="mturk", items=[spec("m", "A sentence.")])
    mturk.hits.update(provider_hit_id="H")  # as published
    page.goto(f"{live_server.url}/mturk/hits/{mturk.hits.get().pk}/?hitId=H&assignmentId=A1&workerId=W"
              f"&turkSubmitTo=https%3A%2F%2Fwww.mturk.com")
    expect(page.locator("#task-saved")).to_contain_text("keeps no drafts")
    page.keyboard.press("y")
    expect(page.locator("#cf-submit")).to_be_enabled()
    assert errors == []
