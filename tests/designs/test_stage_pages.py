"""The organizer's page of a multi-stage design's waiting chains in Chromium: on a 390 px phone it fits, axe finds
nothing serious, and a keyboard-only organizer sends a chain back once more."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from tests.browser import axe_clean, log_in
from tests.designs.test_design_stages import _check, _worker, _workflow, _write
from tests.test_accessibility import PHONE

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_the_waiting_chains_page_fits_a_phone_and_works_by_keyboard(chromium, live_server):
    stages = _workflow(max_rounds=1)
    write, check = stages["write"], stages["check"]
    _write(write, _worker("ann"), "Dark <b>clouds</b> rolled in before noon.")
    _check(check, _worker("ben"), fits=False)
    _write(write, _worker("cat"), "A cold storm arrived in the morning.")
    _check(check, _worker("dan"), fits=False)
    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "boss", "pass-word-1", f"/review/chains/{write.pk}/")
    page.wait_for_selector("section[id^=chain-]")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    axe_clean(page, "waiting-chains-phone")
    page.focus("button:has-text('Send back once more')")
    page.keyboard.press("Enter")
    page.wait_for_selector(".messages")
    assert "send back once more" in page.inner_text(".messages")
    assert "No chain is waiting" in page.inner_text("main")
    assert write.items.filter(key__endswith=":r2").count() == 1
    context.close()


def test_the_check_page_shows_the_rewrite_on_a_no_and_the_prefilled_ending_on_three_yes(chromium, live_server):
    from tests.designs.test_design_stages import _timetravel

    stages = _timetravel()
    _write(stages["write"], _worker("ann"), "Dark clouds rolled in before noon that day.")
    checker = User.objects.create_user("checker", password="pass-word-1")
    checker.groups.add(roles.group(roles.ANNOTATOR))
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    log_in(page, live_server, "checker", "pass-word-1", "/work/")
    page.click("button:has-text('Take a HIT of tales: check')")
    page.wait_for_selector(".design-item.current")  # the page's script has run
    rewrite, ending = page.locator("[data-scheme=rewrite]"), page.locator("[data-scheme=edited_ending]")
    assert rewrite.is_hidden() and ending.is_hidden()
    rows = page.locator("[data-scheme=conditions] tbody tr")
    for row, value in enumerate(("yes", "yes", "no")):
        rows.nth(row).locator(f"input[value='{value}']").check()
    assert rewrite.is_visible() and ending.is_hidden()
    rows.nth(2).locator("input[value='yes']").check()
    assert rewrite.is_hidden() and ending.is_visible()
    boxes = ending.locator(".text-input")
    assert boxes.first.input_value() == "She packed sandwiches."
    assert page.inner_text(f"#{ending.get_attribute('data-field')}-edit") == "edit: is unchanged; edit it"
    axe_clean(page, "timetravel-check-phone")
    boxes.nth(1).fill("Her friends stayed home.")
    page.click("#cf-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    context.close()
