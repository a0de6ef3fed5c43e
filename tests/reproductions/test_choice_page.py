"""Balanced COPA's design (designs/bcopa.yaml) on the generic task page in headless Chromium: answered with the
keyboard only, on a phone too."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from core.items import ChoiceItem
from hits.models import Assignment
from hits.services import batch_publish
from reproductions.copa import choice_batch_create
from tests.browser import browser_page, log_in  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def _items(count):
    return [ChoiceItem(premise=f"The man number {n} broke his toe.", alternative_1="He dropped a hammer on his foot.",
                       alternative_2="He got a hole in his sock.", item_id=str(n + 1), asks_for="cause", answer=1,
                       pair_id=str(n + 1)) for n in range(count)]


def test_an_annotator_picks_alternatives_with_the_keyboard_only(browser_page, live_server, tmp_path):  # noqa: F811
    batch = batch_publish(batch=choice_batch_create(items=_items(6), name="copa", items_per_hit=6,
                                                    assignments_per_hit=1))
    user = User.objects.create_user("chooser", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    log_in(page, live_server, "chooser", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.inner_text("#cf-progress") == "0 of 6 answered"
    assert "What was the cause of this?" in page.inner_text(".task-item.current")
    keys = ["1", "2", "1", "2", "1", "2"]
    for key in keys[:-1]:
        page.keyboard.press(key)
    assert page.is_disabled("#cf-submit")
    page.keyboard.press("k")
    page.keyboard.press("k")
    page.keyboard.press("2")  # the fourth again: the same answer, and on to the fifth
    page.keyboard.press("j")
    page.keyboard.press(keys[-1])
    assert page.inner_text("#cf-progress") == "6 of 6 answered"
    page.screenshot(path=str(tmp_path / "choice.png"), full_page=True)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/")
    assignment = Assignment.objects.get(hit__batch=batch)
    answers = [assignment.answers[str(item.pk)] for item in assignment.hit.ordered_items()]
    assert answers == [{"choice": value} for value in "121212"]


def test_the_choice_page_fits_a_phone(browser_page, live_server, tmp_path):  # noqa: F811
    batch_publish(batch=choice_batch_create(items=_items(2), name="copa", items_per_hit=2, assignments_per_hit=1))
    user = User.objects.create_user("phone", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server, "phone", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector(".task-item")
    page.click(".task-item >> nth=0 >> text=He got a hole in his sock.")
    assert page.is_checked(".task-item >> nth=0 >> input[value='2']")
    assert page.inner_text("#cf-progress") == "1 of 2 answered"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(tmp_path / "choice-phone.png"), full_page=True)
