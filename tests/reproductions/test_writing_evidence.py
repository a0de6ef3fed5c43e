"""Writing-behaviour evidence in Chromium: an answer pasted whole and the same answer typed key by key give
the reviewer two different cards (pasted share, keys, reading), sorted with the pasted one first."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from designs.evidence import card
from hits.models import Assignment
from hits.services import batch_publish
from reproductions.facts import fact_batch_create
from reproductions.rte import paragraph
from tests.browser import browser_page, log_in  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "Oracle had fought to keep the forms from being released, the court heard on Monday."
ANSWER = "Oracle wanted the papers kept secret"


def _write(page, live_server, name, *, paste):
    user = User.objects.create_user(name, password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    log_in(page, live_server, name, "pass-word-1", "/work/")
    page.click("text=Take a HIT")
    page.wait_for_selector(".design-item.current")  # the page's script has run
    field = page.locator(".text-input").first
    field.click()
    if paste:
        page.evaluate("text => navigator.clipboard.writeText(text)", ANSWER)
        page.keyboard.press("Control+V")
    else:
        page.keyboard.type(ANSWER, delay=5)
    page.wait_for_function("document.getElementById('cf-submit').disabled === false")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    page.click("text=Log out")


def test_a_pasted_answer_and_a_typed_one_give_different_cards(browser_page, live_server, tmp_path):  # noqa: F811
    item = paragraph("o1", TEXT, "Oracle")
    batch = batch_publish(batch=fact_batch_create(items=[item], name="facts", items_per_hit=1, assignments_per_hit=2))
    page = browser_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    _write(page, live_server, "typist", paste=False)
    _write(page, live_server, "paster", paste=True)
    stored = {a.worker.user.username: a for a in Assignment.objects.select_related("worker__user")}
    assert {a.state for a in stored.values()} == {"submitted"}
    fields = {name: TEXT for name in stored["paster"].raw_answers if name.startswith("a-")}
    pasted, typed = (card(stored[name].raw_answers, fields) for name in ("paster", "typist"))
    assert pasted.lines[0].statement == typed.lines[0].statement == ANSWER
    assert (pasted.pasted_share, pasted.lines[0].pastes, pasted.lines[0].reading) == (1.0, 1, "pasted whole")
    assert (typed.pasted_share, typed.lines[0].pastes, typed.lines[0].reading) == (0.0, 0, "typed")
    assert typed.lines[0].keys >= len(ANSWER) and pasted.lines[0].keys == 0  # Ctrl+V is not typing

    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    log_in(page, live_server, "boss", "pass-word-1", f"/review/writing/{batch.pk}/")
    cards = page.locator(".evidence-card")
    assert cards.count() == 2
    first, second = cards.nth(0).inner_text(), cards.nth(1).inner_text()
    assert "paster" in first and "Pasted share 100%" in first and "pasted whole" in first
    assert "typist" in second and "Pasted share 0%" in second and "typed" in second
    page.screenshot(path=str(tmp_path / "writing-evidence.png"), full_page=True)


def test_forged_evidence_nested_past_reading_is_no_evidence():
    """The evidence field is the page's JSON; one forged as lists nested thousands deep (Python's reader recursed past
    its limit: a server error on the review page) is read as none recorded."""
    from designs.evidence import FIELD

    found = card({FIELD: "[" * 9000 + "]" * 9000, "line1": "A statement."}, {"line1": "The paragraph."})
    assert not found.recorded and [line.keys for line in found.lines] == [0]
