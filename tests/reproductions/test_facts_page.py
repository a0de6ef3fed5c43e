"""The facts page in headless Chromium: a pasted copy of the paragraph is refused as it is typed (the note
names the rule, submit stays shut) and again by the server when the page's check is bypassed; a statement
of the writer's own goes through."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from hits.models import Assignment
from hits.services import batch_publish
from reproductions.facts import fact_batch_create
from reproductions.rte import paragraph
from tests.browser import browser_page, log_in  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "Oracle had fought to keep the forms from being released, the court heard on Monday."


def test_a_copied_statement_is_refused_live_and_on_the_server(browser_page, live_server, tmp_path):  # noqa: F811
    item = paragraph("o1", TEXT, "Oracle")
    batch = batch_publish(batch=fact_batch_create(items=[item], name="facts", items_per_hit=1, assignments_per_hit=1))
    user = User.objects.create_user("writer", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    log_in(page, live_server, "writer", "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector(".design-item.current")  # the page's script has run
    assert page.inner_text("mark.highlight") == "Oracle"
    field = page.locator(".text-input").first
    field.fill("Oracle had fought to keep the forms from being released")
    note = page.locator(".text-note").first
    assert note.inner_text().startswith("copy: 100% of its words are in the text (at most 90%)")
    assert field.get_attribute("aria-invalid") == "true"
    assert page.is_disabled("#cf-submit")
    page.screenshot(path=str(tmp_path / "facts-refused.png"), full_page=True)

    # The page's check bypassed (as a script or an old page would): the server refuses it, naming the rule.
    field.evaluate("input => input.blur()")  # its change event has run: nothing shuts submit again
    page.evaluate("document.getElementById('cf-submit').disabled = false")
    page.click("#cf-submit")
    page.wait_for_selector("#task-error")
    assert "Statement 1: copy: 100% of its words are in the text" in page.inner_text("#task-error")
    assert Assignment.objects.get(hit__batch=batch).state == "claimed"

    field = page.locator(".text-input").first
    field.fill("Oracle wanted the papers kept secret")
    assert page.locator(".text-note").first.inner_text() == ""
    page.locator(".text-input").nth(1).fill("Oracle")
    assert page.locator(".text-note").nth(1).inner_text().startswith("words: has 1 word;")
    assert page.is_disabled("#cf-submit")
    page.locator(".text-input").nth(1).fill("")
    assert page.is_enabled("#cf-submit")
    page.screenshot(path=str(tmp_path / "facts-ok.png"), full_page=True)
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    assignment = Assignment.objects.get(hit__batch=batch)
    assert assignment.state == "submitted"
    assert list(assignment.answers.values()) == [
        {"statements": {"Statement 1": "Oracle wanted the papers kept secret"}}]
