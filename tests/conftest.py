"""Test-wide fixtures: the gate for slow and integration tests, and a real Celery worker.

Slow tests (marked `slow`: the whole demo, walks over whole corpora) are left
out of `make test` so it stays quick; CROWDSET_ALL_TESTS=1 runs them too, and
CI sets it. A `-m` expression on the command line decides by itself.

Integration tests (marked `integration`) need PostgreSQL, a Redis broker and a
separate Celery worker process. They run when DATABASE_URL points at
PostgreSQL and CELERY_BROKER_URL at Redis; otherwise they are skipped, unless
CROWDSET_REQUIRE_INTEGRATION is set (as CI sets it on its second run), which
makes a skip an error so that CI cannot go green without them.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
# Chromium fixtures (chromium, browser_page) for every page test.
pytest_plugins = ["tests.browser"]


def _integration_ready():
    engine = settings.DATABASES["default"]["ENGINE"]
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if "postgresql" not in engine:
        return "set DATABASE_URL to a PostgreSQL database"
    if not broker.startswith("redis"):
        return "set CELERY_BROKER_URL to a Redis URL"
    return None


def pytest_collection_modifyitems(config, items):
    _leave_out_slow(config, items)
    missing = _integration_ready()
    if missing is None:
        return
    if os.environ.get("CROWDSET_REQUIRE_INTEGRATION"):
        raise pytest.UsageError(f"CROWDSET_REQUIRE_INTEGRATION is set but integration tests cannot run: {missing}")
    skip = pytest.mark.skip(reason=f"integration test: {missing}")
    for item in items:
        if "integration" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """A live-server test's database connections closed where its body opened them. Django keeps a connection per
    context (asgiref's Local), and here the body's context is not the one its fixtures are torn down in (a page
    test's ORM calls after Playwright's showed it: the teardown saw no connection while PostgreSQL still held the
    body's), so the connection stayed open and PostgreSQL could not drop the test database at the end."""
    try:
        return (yield)
    finally:
        if "live_server" in pyfuncitem.fixturenames:
            from django.db import connections

            connections.close_all()


def pytest_sessionfinish(session, exitstatus):
    """Django removes the SQLite test file; its WAL companions are ours to remove."""
    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        for suffix in ("-wal", "-shm"):
            Path(f"{name}{suffix}").unlink(missing_ok=True)


def _leave_out_slow(config, items):
    if os.environ.get("CROWDSET_ALL_TESTS") or config.getoption("markexpr"):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if "slow" not in item.keywords]


@pytest.fixture
def celery_worker(celery_worker_process):
    """Tasks of this test go through the broker to the real worker process."""
    from config.celery import app

    app.conf.task_always_eager = False
    try:
        yield celery_worker_process
    finally:
        app.conf.task_always_eager = True


def start_worker(name, queue="celery", **env):
    """A `celery worker` process against the test database and the real broker, consuming `queue`;
    returns (process, hostname)."""
    from config.celery import app

    database = settings.DATABASES["default"]
    credentials = database["USER"] + (f":{database['PASSWORD']}" if database.get("PASSWORD") else "")
    url = f"postgresql://{credentials}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{database['NAME']}"
    hostname = f"{name}-{os.getpid()}@crowdset"
    environment = {**os.environ, "DATABASE_URL": url, "CELERY_TASK_ALWAYS_EAGER": "false",
                   "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency=2", "--loglevel=WARNING",
         "--without-gossip", "--without-mingle", f"--hostname={hostname}", "-Q", queue],
        cwd=ROOT, env=environment,
    )
    _wait_for_worker(app, worker, hostname)
    return worker, hostname


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A `celery worker` process against the test database and the real broker."""
    from config.celery import app

    app.control.purge()
    worker, _ = start_worker("test")
    try:
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()


def _wait_for_worker(app, worker, hostname, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited with code {worker.returncode} before it was ready")
        if any(hostname in reply for reply in app.control.ping(destination=[hostname], timeout=1)):
            return
    raise RuntimeError(f"no Celery worker answered a ping within {timeout} s")
