"""The generic task page in headless Chromium, as an annotator uses it: keys pick labels on the item they are on,
display logic shows the spans only when they apply, words are marked with the keyboard alone, a slider counts
once moved; on a 390 px phone nothing scrolls sideways; axe-core finds nothing serious."""

import json

import pytest
from django.contrib.auth.models import User

from accounts import roles
from designs.items import read_items
from designs.services import design_batch_create, design_version_save
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import axe_clean, log_in
from tests.test_accessibility import DESKTOP, PHONE

pytestmark = pytest.mark.django_db(transaction=True)

DESIGN = """\
title: Sentiment and its target
instructions: Say how each post sounds; if it is not neutral, underline what it is about.
items: {id_key: id, text_key: text, noun: post}
annotation_schemes:
  - annotation_type: radio
    name: sentiment
    description: How does it sound?
    labels:
      - {name: positive, key_value: "1"}
      - {name: negative, key_value: "2"}
      - {name: neutral, key_value: "3"}
    label_requirement: {required: true}
  - annotation_type: span
    name: target
    description: Underline what it is about.
    labels: [{name: target, key_value: t}]
    one_per_label: true
    label_requirement: {required: true}
    display_logic:
      show_when: [{schema: sentiment, operator: not_equals, value: neutral}]
  - {annotation_type: slider, name: confidence, description: "How sure are you?", min_value: 0, max_value: 100,
     step: 10}
hits: {items_per_hit: 2, assignments_per_hit: 1}
"""
TEXTS = ["The new <em>phone</em> is great", "Rain expected on Sunday"]


@pytest.fixture
def batch():
    version = design_version_save(source=DESIGN, slug="sentiment")
    data = "".join(json.dumps({"id": f"p{n}", "text": text}) + "\n" for n, text in enumerate(TEXTS)).encode()
    records = read_items(data, name="posts.jsonl", design=version.design)
    user = User.objects.create_user("rater", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    return batch_publish(batch=design_batch_create(version=version, records=records, name="Posts"))


def _open(chromium, live_server, size):
    context = chromium.new_context(**size)
    page = context.new_page()
    log_in(page, live_server, "rater", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    return context, page


def test_an_annotator_answers_a_design_with_the_keyboard_only(chromium, live_server, batch):
    context, page = _open(chromium, live_server, DESKTOP)
    assert page.inner_text("#cf-progress") == "0 of 2 answered"
    assert page.locator(".task-item").first.locator(".scheme-span").is_hidden()
    page.keyboard.press("2")  # negative: the span scheme appears and is required
    first = page.locator(".task-item").first
    assert first.locator(".scheme-span").is_visible()
    assert page.inner_text("#cf-progress") == "0 of 2 answered"
    first.locator(".span-text").focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", *["Shift+ArrowRight"] * 8):
        page.keyboard.press(key)  # the cursor on "<" of "<em>phone</em>" (each mark a word), to "is"
    first.locator(".span-label").click()
    assert "target: <em>phone</em> is" in first.locator(".span-list").inner_text()
    assert page.inner_text("#cf-progress") == "1 of 2 answered"
    page.keyboard.press("j")
    page.keyboard.press("3")  # neutral: no spans asked
    assert page.locator(".task-item").nth(1).locator(".scheme-span").is_hidden()
    assert page.inner_text("#cf-progress") == "2 of 2 answered"
    axe_clean(page, "design-task-desktop")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    assignment = Assignment.objects.get(hit__batch=batch)
    items = assignment.hit.ordered_items()
    first_answer = assignment.answers[str(items[0].pk)]
    assert first_answer["sentiment"] == "negative"
    assert first_answer["target"] == [{"start": 8, "end": 25, "label": "target", "text": "<em>phone</em> is"}]
    assert "confidence" not in first_answer  # never moved: not answered
    assert assignment.answers[str(items[1].pk)] == {"sentiment": "neutral"}
    context.close()


def test_the_design_page_fits_a_390_px_phone_and_passesaxe_clean(chromium, live_server, batch):
    context, page = _open(chromium, live_server, PHONE)
    page.locator(".task-item").first.locator("label:has-text('positive')").tap()
    first = page.locator(".task-item").first
    first.locator(".tok").nth(1).tap()  # a tap on the first word, one on the last: a phone has no Shift
    first.locator(".tok").nth(10).tap()  # "is": "<em>phone</em>" is eight words, its marks each one
    first.locator(".span-label").tap()
    assert "target: new <em>phone</em> is" in first.locator(".span-list").inner_text()
    slider = page.locator(".task-item").first.locator("input[type=range]")
    slider.fill("70")
    assert page.locator(".task-item").first.locator("output").inner_text() == "70"
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    axe_clean(page, "design-task-phone")
    context.close()
