"""The Subtask-1 labeling page in headless Chromium: keyboard labeling, preview mode."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from designs.semeval import labeling_batch_create
from hits.models import Assignment
from hits.services import batch_publish
from tests.browser import browser_page, log_in, screenshot  # noqa: F401  (fixture)
from tests.hits.helpers import spec, voted

pytestmark = pytest.mark.django_db(transaction=True)



def _items(count):
    return [spec(f"s{n}", f"Sentence number {n} of the HIT.", group="finance")
            for n in range(count)]


def test_an_annotator_labels_a_full_hit_with_the_keyboard_only(browser_page, live_server):  # noqa: F811
    batch = batch_publish(batch=labeling_batch_create(name="kb", items=_items(25), assignments_per_hit=1))
    user = User.objects.create_user("labeler", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    log_in(page, live_server, "labeler", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.inner_text("#cf-progress") == "0 of 25 answered"
    assert page.is_disabled("#cf-submit")
    keys = ["y" if n % 3 == 0 else "n" for n in range(25)]
    page.keyboard.press("j")
    page.keyboard.press("k")  # back to the first sentence
    for key in keys[:-1]:
        page.keyboard.press(key)
    assert page.inner_text("#cf-progress") == "24 of 25 answered"
    assert page.is_disabled("#cf-submit")
    screenshot(page, "semeval-task-desktop", full_page=False)
    page.keyboard.press("k")
    page.keyboard.press("y")  # change the 24th answer, then come back
    page.keyboard.press("j")
    page.keyboard.press(keys[-1])
    assert page.inner_text("#cf-progress") == "25 of 25 answered"
    assert page.is_enabled("#cf-submit")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    assignment = Assignment.objects.get(hit__batch=batch)
    items = assignment.hit.ordered_items()
    expected = [1 if key == "y" else 0 for key in keys]
    expected[23] = 1
    assert voted({str(item.pk): assignment.answers[str(item.pk)] for item in items}) == expected
    assert int(assignment.raw_answers["_elapsed_ms"]) > 0
    assert '"value":"0"' in assignment.raw_answers["_changes"].replace(" ", "")


def test_mturk_preview_shows_the_task_but_cannot_submit(browser_page, live_server):  # noqa: F811
    batch = labeling_batch_create(name="mt", provider="mturk", items=_items(3))
    batch.hits.update(provider_hit_id="X")  # as published
    hit = batch.hits.get()
    page = browser_page
    page.goto(f"{live_server.url}/mturk/hits/{hit.pk}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=X")
    for key in "yny":
        page.keyboard.press(key)
    assert page.inner_text("#cf-progress") == "3 of 3 answered"
    assert page.is_disabled("#cf-submit")
    assert "Preview" in page.inner_text("#cf-note")
    page.goto(f"{live_server.url}/mturk/hits/{hit.pk}/?assignmentId=3ABC&hitId=X&workerId=AW"
              f"&turkSubmitTo=https://workersandbox.mturk.com")
    for key in "yny":
        page.keyboard.press(key)
    assert page.is_enabled("#cf-submit")
    assert page.get_attribute("#cf-task", "action") == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert page.input_value("#assignmentId") == "3ABC"
