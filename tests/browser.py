"""Headless Chromium for page tests: Debian's /usr/bin/chromium driven by Playwright.

Tests using it are skipped where Chromium is missing, unless
CROWDSET_REQUIRE_BROWSER is set (CI sets it), which makes that an error.
"""

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture
def browser_page():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CROWDSET_REQUIRE_BROWSER"):
            pytest.fail(f"CROWDSET_REQUIRE_BROWSER is set but there is no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the test
    # makes around it are ordinary synchronous calls.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        yield page
        browser.close()


def log_in(page, live_server, username, password, next_url):
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button:has-text('Log in')")
