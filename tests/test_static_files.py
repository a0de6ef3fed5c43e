"""The site and the admin are styled with DEBUG off, under runserver and under gunicorn:
static files come from the web process itself (WhiteNoise), with no `collectstatic` needed."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser import browser_page  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("static") / "db.sqlite3"
    env = _env(path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    return path


def _env(database_path):
    env = {key: value for key, value in os.environ.items() if key not in ("CELERY_BROKER_URL",)}
    env.update(DEBUG="false", HTTPS="false", DATABASE_URL=f"sqlite:///{database_path}",
               DJANGO_SETTINGS_MODULE="config.settings", SECRET_KEY="static-files-test-key-" + "x" * 40)
    return env


def _serve(command, database_path):
    port = _free_port()
    process = subprocess.Popen([part.format(port=port) for part in command], cwd=ROOT, env=_env(database_path),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{command[0]} exited: {process.stderr.read().decode()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1)
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{command[0]} did not answer within 30 s")


SERVERS = {
    "runserver": [sys.executable, "manage.py", "runserver", "--noreload", "127.0.0.1:{port}"],
    "gunicorn": [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi", "--bind", "127.0.0.1:{port}",
                 "--workers", "1"],
}


@pytest.mark.parametrize("server", sorted(SERVERS))
def test_pages_and_admin_are_styled_with_debug_off(server, database, browser_page):  # noqa: F811
    process, url = _serve(SERVERS[server], database)
    try:
        page = browser_page
        page.goto(f"{url}/accounts/login/")
        # The site's stylesheet loaded and applies: the header is a flex row.
        assert page.evaluate("[...document.styleSheets].some(s => s.href && s.href.endsWith('/static/css/site.css')"
                             " && s.cssRules.length > 50)")
        assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).display") == "flex"
        page.goto(f"{url}/admin/login/")
        # Django's admin stylesheet: its header has a coloured background.
        assert page.evaluate("[...document.styleSheets].some(s => s.href && s.href.includes('/static/admin/css/'))")
        assert page.evaluate("getComputedStyle(document.querySelector('#header')).backgroundColor") not in (
            "rgba(0, 0, 0, 0)", "transparent")
        response = urllib.request.urlopen(f"{url}/static/css/site.css")
        assert response.headers["Content-Type"].startswith("text/css")
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_after_collectstatic_pages_link_hashed_files_that_browsers_keep_a_year(tmp_path, database):
    env = {**_env(database), "STATIC_ROOT": str(tmp_path / "static")}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                   check=True)
    port = _free_port()
    process = subprocess.Popen([SERVERS["gunicorn"][0], "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers",
                                "1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page = None
        for _ in range(150):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1).read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert page, "gunicorn did not answer"
        found = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', page)
        assert found, "the login page does not link the stylesheet by its hashed name"
        response = urllib.request.urlopen(f"http://127.0.0.1:{port}{found.group(1)}")
        cache_control = response.headers["Cache-Control"]
        assert "immutable" in cache_control and int(re.search(r"max-age=(\d+)", cache_control).group(1)) >= 31536000
        plain = urllib.request.urlopen(f"http://127.0.0.1:{port}/static/css/site.css")
        assert "immutable" not in plain.headers.get("Cache-Control", "")  # a name that may change its content
    finally:
        process.kill()
        process.wait()
