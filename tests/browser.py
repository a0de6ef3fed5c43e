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
def chromium(monkeypatch):
    """The browser itself, for tests that need more than one page or context (two devices, a phone)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CROWDSET_REQUIRE_BROWSER"):
            pytest.fail(f"CROWDSET_REQUIRE_BROWSER is set but there is no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the test
    # makes around it are ordinary synchronous calls.
    # Set for this test only: a subprocess started later (manage.py check --deploy) must not inherit it.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    return chromium.new_page()


# Screenshots the page tests take, for a person to look at (not committed).
SCREENSHOTS = Path(__file__).resolve().parent.parent / "bench" / "out" / "pages"
# The documentation's pictures: taken by the tests that walk the pages, so the docs show the pages as they are.
DOCS_IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def screenshot(page, name, full_page=True, docs=None):
    """Save the page as bench/out/pages/NAME.png; with `docs`, also the window as docs/images/DOCS.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)
    if docs:
        page.screenshot(path=str(DOCS_IMAGES / f"{docs}.png"))


def log_in(page, live_server, username, password, next_url):
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button:has-text('Log in')")


def axe_clean(page, name, docs=None):
    """Screenshot the page as `name` (and `docs`), then run axe-core on it: no serious or critical violation."""
    from axe_playwright_python.sync_playwright import Axe

    screenshot(page, name, docs=docs)
    results = Axe().run(page)
    bad = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], bad


def drag_characters(page, text, start, end):
    """Select characters start..end (end exclusive) of a span text with the mouse, as a person drags over them:
    pressed on the first character's left edge, let go on the last one's right edge."""
    points = text.evaluate("""(root, [start, end]) => {
        const at = (n, right) => {  // the on-screen box of the n-th character of the element's text
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            let seen = 0;
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const length = node.textContent.length;
                if (n < seen + length) {
                    const range = document.createRange();
                    range.setStart(node, n - seen);
                    range.setEnd(node, n - seen + 1);
                    const box = range.getBoundingClientRect();
                    return {x: right ? box.right - 1 : box.left + 1, y: box.top + box.height / 2};
                }
                seen += length;
            }
        };
        return [at(start, false), at(end - 1, true)];
    }""", [start, end])
    page.mouse.move(points[0]["x"], points[0]["y"])
    page.mouse.down()
    page.mouse.move(points[1]["x"], points[1]["y"], steps=6)
    page.mouse.up()
