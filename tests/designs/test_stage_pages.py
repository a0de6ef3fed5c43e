"""The organizer's page of a multi-stage design's waiting chains in Chromium: on a 390 px phone it fits, axe finds
nothing serious, and a keyboard-only organizer sends a chain back once more."""

import pytest
from django.contrib.auth.models import User

from accounts import roles
from tests.browser import axe_clean, log_in, screenshot
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


@pytest.mark.parametrize("viewport", [{"viewport": {"width": 1280, "height": 900}}, PHONE], ids=["desktop", "phone"])
def test_the_chains_and_a_chain_s_lineage_read_on_a_desktop_and_a_phone(chromium, live_server, viewport):
    from tests.designs.test_design_stages import _judge, _timetravel

    stages = _timetravel(max_rounds=1)
    write, check = stages["write"], stages["check"]
    _write(write, _worker("ann"), "Dark <b>clouds</b> rolled in before noon that day.")
    _judge(check, _worker("ben"), fails=True, rewrite="A cold storm flooded the whole park by morning.")
    _judge(check, _worker("cat"), ending=["She packed umbrellas.", "Her friends stayed home.", "They ate inside."])
    boss = User.objects.create_user("boss", password="pass-word-1")
    boss.groups.add(roles.group(roles.ORGANIZER))
    context = chromium.new_context(**viewport)
    page = context.new_page()
    name = "phone" if viewport is PHONE else "desktop"
    log_in(page, live_server, "boss", "pass-word-1", f"/review/chains/{check.pk}/")
    assert "passed: 1" in page.inner_text("main")
    axe_clean(page, f"chains-{name}")
    page.click("[aria-label=Chains] table a")  # the one chain's lineage
    page.wait_for_selector("h1:has-text('Chain s1')")
    steps = page.locator("ol.chain-steps > li")
    assert steps.count() == 3
    assert "failed the check" in steps.nth(1).inner_text() and "passed the check" in steps.nth(2).inner_text()
    assert page.locator("ol.chain-steps ins.diff-added").first.inner_text() == "umbrellas."
    assert "<b>clouds</b>" in steps.nth(0).inner_text()  # the writer's text shown as text, not markup
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    axe_clean(page, f"chain-lineage-{name}")
    screenshot(page, f"chain-lineage-{name}")
    context.close()
