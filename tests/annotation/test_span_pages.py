"""The Subtask-2 span page (designs/semeval-subtask2.yaml on the generic page) and the organizer's review page in
headless Chromium."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from accounts import roles
from annotation.models import SpanAnnotation, SpanChange
from designs.semeval import spans_batch_create
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import browser_page, log_in, screenshot  # noqa: F401  (fixture)
from tests.hits.helpers import span_fields, spec

pytestmark = pytest.mark.django_db(transaction=True)

ENGLISH = "If the bill had passed, prices would have fallen."
OTHER = "Si j'étais riche 😀, 我会买房子 — café."
HOSTILE = '<script>window.__xss = 1</script> If only <b>this</b> had worked.'



def _batch(texts):
    items = [spec(f"s{n}", text) for n, text in enumerate(texts)]
    return batch_publish(batch=spans_batch_create(name="spans", items=items, items_per_hit=len(items),
                                                  assignments_per_hit=1))


def _annotator(name):
    user = User.objects.create_user(name, password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    return user


def mark(page, scope, first, last, label, drag=False):
    """Select words `first` to `last` of a sentence as a person would (two clicks, or a drag pressed inside the
    first word), then pick the label."""
    words = page.locator(f"{scope} .span-text .tok")
    words.nth(first).scroll_into_view_if_needed()
    if drag:
        a, b = words.nth(first).bounding_box(), words.nth(last).bounding_box()
        page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        page.mouse.down()
        page.mouse.move(b["x"] + b["width"] - 1, b["y"] + b["height"] / 2, steps=8)
        page.mouse.up()
    else:
        words.nth(first).click()
        words.nth(last).click()
    page.click(f"{scope} .span-label[data-label={label}]")


def _scopes(batch):
    """The page's element for each sentence (the batch shuffles them)."""
    return {item.content.text: f'.design-item[data-item="{item.pk}"]' for item in batch.items.all()}


def test_an_annotator_marks_spans_with_the_mouse_and_flags_a_sentence(browser_page, live_server):  # noqa: F811
    batch = _batch([ENGLISH, OTHER, HOSTILE])
    _annotator("marker")
    page = browser_page
    log_in(page, live_server, "marker", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    scopes = _scopes(batch)
    first, second, third = scopes[ENGLISH], scopes[OTHER], scopes[HOSTILE]
    # The page shows the hostile sentence as text; its script never ran.
    assert "<script>window.__xss = 1</script>" in page.inner_text(third)
    assert page.evaluate("window.__xss") is None
    assert page.is_disabled("#cf-submit")

    page.check(f"{first} input[value='yes']")  # the double check: then the words to mark show
    mark(page, first, 0, 4, "antecedent", drag=True)  # "If the bill had passed", its comma left out
    mark(page, first, 6, 9, "consequent")  # "prices would have fallen"
    expect(page.locator(f"{first} .span-list li")).to_have_count(2)
    listed = page.inner_text(f"{first} .span-list")
    assert "antecedent: If the bill had passed" in listed and "consequent: prices would have fallen" in listed

    page.check(f"{second} input[value='yes']")
    mark(page, second, 0, 2, "antecedent")  # a wrong antecedent first: removed and redone
    expect(page.locator(f"{second} .span-list li")).to_have_count(1)
    page.click(f"{second} .span-list button")
    expect(page.locator(f"{second} .span-list li")).to_have_count(0)
    mark(page, second, 0, 3, "antecedent")  # "Si j'étais riche 😀"; no consequent: none marked
    expect(page.locator(f"{second} .span-list")).to_contain_text("Si j'étais riche 😀")
    assert page.inner_text("#cf-progress") == "2 of 3 answered"

    page.check(f"{third} input[value='no']")  # not counterfactual: flagged, no spans, a reason if they like
    page.fill(f"{third} .scheme-text input", "A wish, nothing happened or not.")
    assert page.is_enabled("#cf-submit")
    screenshot(page, "semeval-spans-desktop")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")

    assignment = Assignment.objects.get(hit__batch=batch)
    by_text = {a.text: a for a in SpanAnnotation.objects.filter(assignment=assignment)}
    english, other, hostile = by_text[ENGLISH], by_text[OTHER], by_text[HOSTILE]
    assert ENGLISH[english.antecedent_start:english.antecedent_end + 1] == "If the bill had passed"
    assert ENGLISH[english.consequent_start:english.consequent_end + 1] == "prices would have fallen"
    # Character offsets of the stored text: the emoji is one character here, two in JavaScript.
    assert (other.antecedent_start, other.antecedent_end) == (0, OTHER.index("😀"))
    assert OTHER[other.antecedent_start:other.antecedent_end + 1] == "Si j'étais riche 😀"
    assert (other.consequent_start, other.consequent_end) == (-1, -1)
    assert hostile.flagged and hostile.antecedent_start == -1
    assert hostile.flag_reason == "A wish, nothing happened or not."
    assert SpanChange.objects.filter(action="submitted").count() == 3


def test_a_reviewer_drags_a_span_edge_and_accepts(browser_page, live_server):  # noqa: F811
    batch = _batch([ENGLISH, HOSTILE])
    annotator = _annotator("marker")
    from hits.services import assignment_claim, assignment_submit, worker_for_user

    worker = worker_for_user(annotator)
    assignment = assignment_claim(batch=batch, worker=worker)
    english, hostile = sorted(assignment.hit.ordered_items(), key=lambda i: i.key)
    assignment_submit(assignment=assignment, worker=worker, raw_answers={
        **span_fields(english, ant="1:4", con="6:9"), **span_fields(hostile, cf="0")})
    english, hostile = english.pk, hostile.pk
    User.objects.create_user("boss", password="pass-word-1", is_staff=True)
    annotation = SpanAnnotation.objects.get(item_id=english)
    assert annotation.antecedent == "the bill had passed"  # the annotator missed "If"

    page = browser_page
    log_in(page, live_server, "boss", "pass-word-1", "/review/spans/")
    assert "flagged: not counterfactual" in page.inner_text("table")
    assert page.evaluate("window.__xss") is None
    page.click(f"a[href^='/review/spans/{annotation.pk}/']")
    page.wait_for_selector("#review-form .tok.edge")
    # Drag the antecedent's first word ("the") onto "If".
    edge = page.locator('#review-form .tok[data-i="1"]').bounding_box()
    target = page.locator('#review-form .tok[data-i="0"]').bounding_box()
    page.mouse.move(edge["x"] + 2, edge["y"] + edge["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + 2, target["y"] + target["height"] / 2, steps=6)
    page.mouse.up()
    expect(page.locator("#review-form .sp-ant-text")).to_have_text("If the bill had passed")
    page.click("#review-accept")
    page.wait_for_load_state()
    annotation.refresh_from_db()
    assert annotation.state == "accepted" and annotation.antecedent == "If the bill had passed"
    assert annotation.consequent == "prices would have fallen"
    change = annotation.changes.get(action="adjusted")
    assert change.user.username == "boss"
    assert change.before["spans"][0] == 3 and change.after["spans"][0] == 0
    # The next page in the queue is the flagged sentence: remove it, history shows both steps.
    assert "flagged this sentence" in page.inner_text("body")
    assert page.evaluate("window.__xss") is None
    page.click("#review-remove")
    page.wait_for_load_state()
    flagged = SpanAnnotation.objects.get(item_id=hostile)
    assert flagged.state == "removed" and flagged.changes.filter(action="removed", user__username="boss").exists()
    page.goto(f"{live_server.url}/review/spans/{annotation.pk}/?show=all")
    history = page.inner_text("table")
    assert "submitted" in history and "adjusted" in history and "boss" in history
