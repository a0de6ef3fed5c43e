"""Scale-out: two gunicorn instances on two ports share one PostgreSQL and Redis (broker and cache), and an annotator's
requests may land on either, as behind a load balancer with no sticky sessions. Logged in on one, the session
works on the other; a HIT claimed on one is the one the other shows, its draft and submit go to whichever
instance, a replayed submit on the other instance stores nothing twice, and the organizer sees the one result.
Adding hosts is configuration (the same DATABASE_URL, CELERY_BROKER_URL, CACHE_URL and SECRET_KEY), not code."""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import requests
from django.conf import settings
from django.contrib.auth.models import User

from accounts import roles
from accounts.hashers import Argon2idHasher
from designs.semeval import labeling_batch_create
from hits.models import Assignment
from hits.services import batch_publish
from tests.hits.helpers import items, vote

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parent.parent
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _database_url():
    database = settings.DATABASES["default"]
    credentials = database["USER"] + (f":{database['PASSWORD']}" if database.get("PASSWORD") else "")
    return f"postgresql://{credentials}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{database['NAME']}"


@pytest.fixture
def instances(transactional_db):
    """Two gunicorn instances (two workers each) with the settings a second host would have: the same database,
    broker, cache (Redis) and secret key, nothing else shared."""
    cache = re.sub(r"/\d+$", "", os.environ["CELERY_BROKER_URL"]) + "/11"
    redis.Redis.from_url(cache).flushdb()
    environment = {**os.environ, "DATABASE_URL": _database_url(), "DJANGO_SETTINGS_MODULE": "config.settings",
                   "DEBUG": "false", "HTTPS": "false", "SECRET_KEY": "scale-out-test-key-" + "x" * 40,
                   "CACHE_URL": cache, "SERVER_TIMING": "true"}
    started = []
    try:
        for _ in range(2):
            port = _free_port()
            process = subprocess.Popen(
                [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
                 "--workers", "2"], cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            started.append((process, f"http://127.0.0.1:{port}"))
        for process, url in started:
            _wait(process, url)
        yield [url for _, url in started]
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=20)


def _wait(process, url):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {process.stderr.read().decode()[-2000:]}")
        try:
            requests.get(f"{url}/accounts/login/", timeout=5)
            return
        except requests.RequestException:  # not listening yet, or a worker still loading Django
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn at {url} did not answer within 60 s")


def _queries(response):
    return int(re.search(r'db;desc="(\d+) queries"', response.headers["Server-Timing"]).group(1))


def _token(response):
    found = TOKEN.search(response.text)
    assert found, f"{response.url} has no form token: {response.status_code} {response.text[:300]!r}"
    return found.group(1)


def test_an_annotator_s_requests_may_land_on_either_instance(instances):
    first, second = instances
    batch = batch_publish(batch=labeling_batch_create(name="Two hosts", items=items(10), items_per_hit=5,
                                                      assignments_per_hit=1))
    # Hashed as the instances hash (the tests' own settings use a fast hasher the site does not know).
    hashed = Argon2idHasher().encode("pass-word-1", Argon2idHasher().salt())
    ann = User.objects.create(username="ann", password=hashed)
    ann.groups.add(roles.group(roles.ANNOTATOR))
    browser = requests.Session()  # cookies go with 127.0.0.1 whatever the port, as with one name behind a balancer

    login = browser.get(f"{first}/accounts/login/?next=/work/")
    landed = browser.post(f"{first}/accounts/login/?next=/work/", data={
        "username": "ann", "password": "pass-word-1", "csrfmiddlewaretoken": _token(login)},
        headers={"Referer": f"{first}/accounts/login/"})
    assert landed.url == f"{first}/work/" and "Two hosts" in landed.text

    work = browser.get(f"{second}/work/")  # the session made on the first instance
    assert work.status_code == 200 and "<strong>2</strong> HITs left for you" in work.text
    claimed = browser.post(f"{second}/work/batches/{batch.pk}/claim/", data={"csrfmiddlewaretoken": _token(work)},
                           allow_redirects=False)
    assert claimed.status_code == 302, claimed.text[:300]
    path = claimed.headers["Location"]
    assignment = Assignment.objects.get(pk=int(path.rstrip("/").rsplit("/", 1)[1]))

    page = browser.get(f"{first}{path}")  # the HIT claimed on the second instance, shown by the first
    token = _token(page)
    # The HIT's body, rendered by the first instance, is read from the shared cache by the second: neither its
    # items nor its design are read from the database again.
    shown_again = browser.get(f"{second}{path}")
    assert shown_again.text.count('class="task-item') == page.text.count('class="task-item') == 5
    assert _queries(shown_again) == _queries(page) - 2, (page.headers["Server-Timing"],
                                                         shown_again.headers["Server-Timing"])
    fields = {key: value for item in assignment.hit.ordered_items() for key, value in vote(item, "1").items()}
    first_field = next(iter(fields))
    draft = browser.post(f"{second}{path}draft/", data={first_field: "1", "csrfmiddlewaretoken": token})
    assert draft.status_code == 200, draft.text[:300]
    assert Assignment.objects.get(pk=assignment.pk).draft[first_field] == "1"
    again = browser.get(f"{first}{path}")
    assert f'"{first_field}": "1"' in again.text  # the draft saved through the second instance

    submitted = browser.post(f"{first}{path}submit/", data={**fields, "csrfmiddlewaretoken": token},
                             allow_redirects=False)
    assert submitted.status_code == 302, submitted.text[:300]
    replay = browser.post(f"{second}{path}submit/", data={**fields, "csrfmiddlewaretoken": token},
                          allow_redirects=False)
    assert replay.status_code in (302, 400, 409), replay.text[:300]
    stored = Assignment.objects.get(pk=assignment.pk)
    assert stored.state == "submitted" and len(stored.answers) == 5
    assert Assignment.objects.filter(hit__batch=batch).count() == 1  # one place, stored once

    for url in (first, second):  # both instances see the HIT done
        assert "<strong>1</strong> HIT left for you" in browser.get(f"{url}/work/").text
