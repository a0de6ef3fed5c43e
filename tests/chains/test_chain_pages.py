"""The chains pages in headless Chromium: the check-then-edit page shows the changes word by word as they are
typed with the measured edit size, shuts submit on an ending rewritten from scratch (and the server refuses it
when the page is bypassed); every new page passes axe-core on a desktop and a 390 px phone."""

import json

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from accounts import roles
from chains.evaluation import ratings_batch_create
from chains.models import Chain
from chains.services import workflow_create, workflow_publish
from core.stories import read_stories
from designs.items import Record
from hits.models import Assignment, Batch, Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from tests.browser import chromium, log_in, screenshot  # noqa: F401  (fixture)
from tests.test_accessibility import DESKTOP, PHONE, _check

pytestmark = pytest.mark.django_db(transaction=True)

STORIES = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"


@pytest.fixture
def site():
    known = {row["story_id"]: row for row in map(json.loads, STORIES.read_text(encoding="utf-8").splitlines())}
    story = read_stories(STORIES)[0]
    workflow = workflow_create(name="Stories", stories=[story, read_stories(STORIES)[1]])
    workflow_publish(workflow)
    writer = Worker.objects.create(provider="inhouse", external_id="writer")
    write = Batch.objects.get(pk=workflow.stage("write").batch_id)
    for _ in range(2):
        assignment = assignment_claim(batch=write, worker=writer)
        item = assignment.hit.ordered_items()[0]
        assignment_submit(assignment=assignment, worker=writer, raw_answers={
            f"cf-{item.pk}": known[item.content.story_id]["counterfactual"],
            **{f"cond-{item.pk}-{key}": "on" for key in ("related", "premise", "ending")}})
    batch_publish(batch=ratings_batch_create([Record(
        id=f"r{n}", text="She borrowed flour from a neighbor.", group="human",
        fields={"story": "Maya wanted to learn to bake bread.", "system": "human"}) for n in range(2)],
        name="Rate endings", items_per_hit=2, assignments_per_hit=2))
    batch_publish(batch=ratings_batch_create([Record(
        id="p", text="Maya wanted to learn to bake bread.",
        fields={"endings": ["She borrowed flour.", "She baked bread."], "system_a": "human", "system_b": "original"})],
        name="Compare endings", comparisons=True, items_per_hit=1, assignments_per_hit=2))
    for name, role in (("editor", roles.ANNOTATOR), ("boss", roles.ORGANIZER)):
        user = User.objects.create_user(name, password="pass-word-1")
        user.groups.add(roles.group(role))
    return {"workflow": workflow, "known": known}


def test_the_edit_page_shows_the_diff_live_and_refuses_a_rewrite(chromium, live_server, site):  # noqa: F811
    page = chromium.new_page()
    log_in(page, live_server, "editor", "pass-word-1", "/work/")
    page.click("button:has-text('Take a HIT of Stories: check and edit')")
    page.wait_for_selector(".story-edit-item")
    story = page.locator(".story-edit-item").first
    assert story.locator(".story-ending").is_hidden()
    story.locator("input[value='yes']").nth(0).check()
    story.locator("input[value='yes']").nth(1).check()
    story.locator("input[value='no']").nth(2).check()
    assert story.locator(".story-rewrite").is_visible() and story.locator(".story-ending").is_hidden()
    story.locator("input[value='yes']").nth(2).check()
    assert story.locator(".story-ending").is_visible() and story.locator(".story-rewrite").is_hidden()
    first = story.locator(".story-end").first
    assert first.input_value() == first.get_attribute("data-original")
    assert "The ending is unchanged" in story.locator(".story-size").inner_text()
    assert page.is_disabled("#cf-submit")

    original = first.input_value()
    first.fill(original.replace("dough", "borrowed dough"))
    assert story.locator(".diff-added").all_inner_texts() == ["borrowed"]
    assert story.locator(".diff-removed").count() == 0
    assert story.locator(".story-size").inner_text().startswith("Your edit: 1 word edit for ")
    assert page.is_enabled("#cf-submit")
    screenshot(page, "story-edit-diff")

    rewritten = ["A dragon flew over the city at dawn.", "Everyone ran to the hills to hide.",
                 "By night the dragon had gone back to sleep."]
    for n, sentence in enumerate(rewritten):
        story.locator(".story-end").nth(n).fill(sentence)
    note = story.locator(".story-size").inner_text()
    assert note.startswith("This ending is rewritten, not edited: ") and "change at most 80%" in note
    assert story.locator(".diff-removed").count() > 0
    assert page.is_disabled("#cf-submit")
    screenshot(page, "story-edit-rewritten")

    # The page bypassed: the server measures the same edit and refuses it; nothing is stored. (The box is
    # left first: leaving it is a change, which would shut submit again.)
    page.evaluate("document.activeElement.blur(); document.getElementById('cf-submit').disabled = false")
    page.click("#cf-submit")
    page.wait_for_selector("#task-error")
    error = page.inner_text("#task-error")
    assert "Story 1: this ending is rewritten, not edited:" in error and "word edits for" in error
    assert Assignment.objects.get(worker__user__username="editor").state == "claimed"

    edited = site["known"][Chain.objects.order_by("pk").first().story_id]["edited_ending"]
    story = page.locator(".story-edit-item").first
    for n in range(3):
        story.locator("input[value='yes']").nth(n).check()
    for n, sentence in enumerate(edited):
        story.locator(".story-end").nth(n).fill(sentence)
    page.wait_for_function("!document.getElementById('cf-submit').disabled")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    assert Chain.objects.filter(state="edited").count() == 1


def _pages(chromium, live_server, site, size, width):  # noqa: F811
    context = chromium.new_context(**size)
    page = context.new_page()
    log_in(page, live_server, "editor", "pass-word-1", "/work/")
    page.click("button:has-text('Take a HIT of Stories: check and edit')")
    page.wait_for_selector(".story-edit-item")
    for n in range(3):
        page.locator(".story-edit-item").first.locator("input[value='yes']").nth(n).check()
    first = page.locator(".story-end").first
    first.fill(first.input_value().replace(".", " at last."))
    _check(page, "story-edit", width)
    for name, shot in (("Rate endings", "rating"), ("Compare endings", "pair")):
        page.goto(f"{live_server.url}/work/")
        page.click(f"button:has-text('Take a HIT of {name}')")
        page.wait_for_selector(".design-item")
        page.locator(".design-item").first.locator("input[type=radio]").first.check()
        _check(page, shot, width)
    context.close()

    context = chromium.new_context(**size)
    page = context.new_page()
    writer = Worker.objects.create(provider="inhouse", external_id="w-2")
    workflow_create(name="More stories", stories=read_stories(STORIES)[2:3])
    workflow_publish(site["workflow"].__class__.objects.get(name="More stories"))
    log_in(page, live_server, "editor", "pass-word-1", "/work/")
    page.click("button:has-text('Take a HIT of More stories: write')")
    page.wait_for_selector(".story-item")
    page.fill(".story-write", "Short.")
    _check(page, "story-write", width)
    context.close()
    del writer

    context = chromium.new_context(**size)
    page = context.new_page()
    log_in(page, live_server, "boss", "pass-word-1", f"/chains/{site['workflow'].pk}/")
    page.wait_for_selector("#chains")
    _check(page, "workflow", width)
    page.goto(f"{live_server.url}/chains/chain/{Chain.objects.order_by('pk').first().pk}/")
    page.wait_for_selector(".story")
    _check(page, "chain", width)
    context.close()


def test_the_chains_pages_pass_axe_on_a_desktop(chromium, live_server, site):  # noqa: F811
    _pages(chromium, live_server, site, DESKTOP, "desktop")


def test_the_chains_pages_pass_axe_and_fit_a_390_px_phone(chromium, live_server, site):  # noqa: F811
    _pages(chromium, live_server, site, PHONE, "phone")
