"""Annotators for the load test (`bench/load_test.py` drives it; not meant to run alone).

Each simulated annotator starts with a session the driver prepared (a login
costs about a second of PBKDF2 by design; it is measured apart), then loops:
open the work list, take a HIT of the batch, open its page, answer every
sentence and submit. Every request's time is written down, and so is every
submission the server acknowledged, for the driver to compare with the database.
"""

import json
import os
import random
import re
import time

from locust import HttpUser, between, events, task

BATCH = int(os.environ["LOAD_BATCH"])
RECORD = os.environ["LOAD_RECORD"]
with open(os.environ["LOAD_SESSIONS"], encoding="utf-8") as _file:
    SESSIONS = json.load(_file)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ITEM = re.compile(r'name="a-(\d+)-0" value="1"')  # a sentence's yes/no on designs/semeval-subtask1.yaml's page
# With several locust processes each takes its own share of the prepared sessions (its worker index).
PROCESSES = int(os.environ.get("LOAD_PROCESSES", "1"))
_sessions = None
_submitted = {}  # assignment id -> votes sent, for submissions the server acknowledged
_requests = []  # (name, started at, milliseconds, failed)


THINK = [float(seconds) for seconds in os.environ.get("LOAD_THINK", "1,3").split(",")]
LABEL = [float(seconds) for seconds in os.environ.get("LOAD_LABEL", "15,45").split(",")]


class Annotator(HttpUser):
    # Seconds between a submit and the next HIT, and (LABEL) spent answering a HIT's 25 sentences.
    # People in the paper's setting take minutes per HIT: the default crowd is several times faster.
    wait_time = between(*THINK)

    def on_start(self):
        global _sessions
        if _sessions is None:
            index = getattr(self.environment.runner, "worker_index", 0) if PROCESSES > 1 else 0
            _sessions = iter(SESSIONS[index::PROCESSES])
        self.client.cookies.set("sessionid", next(_sessions))

    @task
    def take_and_submit(self):
        listing = self.client.get("/work/", name="work list")
        token = CSRF.search(listing.text)
        if not token:
            return
        with self.client.post(f"/work/batches/{BATCH}/claim/", name="claim", allow_redirects=False,
                              data={"csrfmiddlewaretoken": token.group(1)}, catch_response=True) as claim:
            location = claim.headers.get("Location", "")
            if claim.status_code != 302:
                claim.failure(f"claim answered {claim.status_code}")
                return
            if "/assignments/" not in location:
                claim.success()  # no HIT left for this annotator: a fair answer, not an error
                self.stop()
                return
        with self.client.get(location, name="HIT page", catch_response=True) as page:
            token = CSRF.search(page.text)
            if page.status_code != 200 or not token or "cf-task" not in page.text:
                page.failure(f"HIT page answered {page.status_code} without the task form: {page.text[:200]!r}")
                return
        assignment = int(location.rstrip("/").rsplit("/", 1)[1])
        items = ITEM.findall(page.text)
        answers = {f"a-{item}-0": random.choice("01") for item in items}
        answers.update({"csrfmiddlewaretoken": token.group(1), "_elapsed_ms": "60000",
                        "_changes": "[]"})
        time.sleep(random.uniform(*LABEL))  # locust makes this a cooperative (gevent) sleep
        with self.client.post(f"/work/assignments/{assignment}/submit/", name="submit", data=answers,
                              allow_redirects=False, catch_response=True) as submit:
            if submit.status_code == 302:
                _submitted[assignment] = len(items)
            elif submit.status_code == 0 and self.environment.runner.state in ("stopping", "stopped", "cleanup"):
                # Cut off by the end of the test (a worker process stopping its users), not answered by the
                # site: nothing was acknowledged, and the check counts only acknowledged submissions.
                submit.success()
            else:
                submit.failure(f"submit answered {submit.status_code}: {submit.text[:200]}")


class Visitor(HttpUser):
    """The baseline: one visitor reading the login page, a view that touches no crowd table."""

    fixed_count = 1
    wait_time = between(0.5, 1.5)

    @task
    def login_page(self):
        self.client.get("/accounts/login/", name="login page (baseline)")


@events.request.add_listener
def _time(name, response_time, exception, **kwargs):
    _requests.append((name, time.time(), response_time, exception is not None, str(exception or "")[:300]))


# Each process writes what it saw (with --processes the requests happen in the worker processes, which
# may be stopped before `quitting` reaches them, so `test_stop` writes too).
@events.test_stop.add_listener
@events.quitting.add_listener
def _write_record(environment, **kwargs):
    with open(f"{RECORD}.{os.getpid()}", "w", encoding="utf-8") as handle:
        json.dump({"submitted": _submitted, "requests": _requests}, handle)
