"""Annotators for the load test (`bench/load_test.py` drives it; not meant to run alone).

Each simulated annotator does what a person on the task page does: logs in (the login form, a real password
check), opens the work list, takes a HIT of the batch and opens its page, answers its items one at a time
(8 to 15 s each, jittered; every answer is saved as a draft, as the page's script does), submits with
*Submit and take the next HIT* and goes on with the next. Every request's time is written down, with the
server's own CPU time for it (the Server-Timing header the bench turns on), and so is every submission the
server acknowledged, for the driver to compare with the database.
"""

import json
import os
import random
import re
import time

from locust import HttpUser, between, events, task

BATCH = int(os.environ["LOAD_BATCH"])
RECORD = os.environ["LOAD_RECORD"]
PASSWORD = os.environ["LOAD_PASSWORD"]
USERS = int(os.environ["LOAD_USERS"])
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ITEM = re.compile(r'name="a-(\d+)-0" value="1"')  # a sentence's yes/no on designs/semeval-subtask1.yaml's page
CPU = re.compile(r"cpu;dur=([\d.]+)")
APP = re.compile(r"app;dur=([\d.]+)")
ANSWER = [float(seconds) for seconds in os.environ.get("LOAD_ANSWER", "8,15").split(",")]
# With several locust processes each takes its own share of the annotators (its worker index).
PROCESSES = int(os.environ.get("LOAD_PROCESSES", "1"))
_names = None
_submitted = {}  # assignment id -> votes sent, for submissions the server acknowledged
_requests = []  # (name, started at, milliseconds, failed, error, server CPU ms, server wall ms)


class Annotator(HttpUser):
    wait_time = between(1, 3)  # after the last HIT left for them, before looking again

    def on_start(self):
        global _names
        if _names is None:
            index = getattr(self.environment.runner, "worker_index", 0) if PROCESSES > 1 else 0
            _names = iter(range(index + 1, USERS + 1, PROCESSES))
        self.username = f"load-{next(_names):04d}"
        page = self.client.get("/accounts/login/", name="login page")
        with self.client.post("/accounts/login/?next=/work/", name="log in", allow_redirects=False,
                              data={"username": self.username, "password": PASSWORD,
                                    "csrfmiddlewaretoken": CSRF.search(page.text).group(1)},
                              catch_response=True) as login:
            if login.status_code != 302:
                login.failure(f"log in answered {login.status_code}")
        self.location = None

    @task
    def work(self):
        if self.location is None:
            listing = self.client.get("/work/", name="work list")
            token = CSRF.search(listing.text)
            if not token:
                return
            with self.client.post(f"/work/batches/{BATCH}/claim/", name="claim", allow_redirects=False,
                                  data={"csrfmiddlewaretoken": token.group(1)}, catch_response=True) as claim:
                if claim.status_code != 302:
                    claim.failure(f"claim answered {claim.status_code}")
                    return
                self.location = claim.headers.get("Location", "")
        if "/assignments/" not in self.location:
            self.location = None  # no HIT left for this annotator: a fair answer, not an error
            return
        self.answer_hit()

    def _stopping(self):
        return self.environment.runner.state in ("stopping", "stopped", "cleanup")

    def answer_hit(self):
        with self.client.get(self.location, name="task page", catch_response=True) as page:
            token = CSRF.search(page.text)
            if page.status_code != 200 or not token or "cf-task" not in page.text:
                page.failure(f"task page answered {page.status_code} without the task form: {page.text[:200]!r}")
                self.location = None
                return
        assignment = int(self.location.rstrip("/").rsplit("/", 1)[1])
        token = token.group(1)
        answers = {}
        for item in ITEM.findall(page.text):
            time.sleep(random.uniform(*ANSWER))  # locust makes this a cooperative (gevent) sleep
            answers[f"a-{item}-0"] = random.choice("01")
            with self.client.post(f"/work/assignments/{assignment}/draft/", name="draft", catch_response=True,
                                  data={**answers, "_draft_at": str(int(time.time() * 1000))},
                                  headers={"X-CSRFToken": token, "Accept": "application/json"}) as draft:
                if draft.status_code == 0 and self._stopping():
                    draft.success()  # cut off by the end of the test, not answered by the site
                elif draft.status_code != 200:
                    draft.failure(f"draft answered {draft.status_code}: {draft.text[:200]}")
        with self.client.post(f"/work/assignments/{assignment}/submit/", name="submit and next", data={
                **answers, "csrfmiddlewaretoken": token, "_elapsed_ms": "60000", "_changes": "[]", "next": "1"},
                allow_redirects=False, catch_response=True) as submit:
            if submit.status_code == 302:
                _submitted[assignment] = len(answers)
                self.location = submit.headers.get("Location", "")
            elif submit.status_code == 0 and self._stopping():
                # Cut off by the end of the test (a worker process stopping its users), not answered by the
                # site: nothing was acknowledged, and the check counts only acknowledged submissions.
                submit.success()
                self.location = None
            else:
                submit.failure(f"submit answered {submit.status_code}: {submit.text[:200]}")
                self.location = None


class Visitor(HttpUser):
    """The baseline: one visitor reading the login page, a view that touches no crowd table."""

    fixed_count = 1
    wait_time = between(0.5, 1.5)

    @task
    def login_page(self):
        self.client.get("/accounts/login/", name="login page (baseline)")


@events.request.add_listener
def _time(name, response_time, exception, response=None, **kwargs):
    header = response.headers.get("Server-Timing", "") if response is not None else ""
    cpu, app = CPU.search(header), APP.search(header)
    _requests.append((name, time.time(), response_time, exception is not None, str(exception or "")[:300],
                      float(cpu.group(1)) if cpu else None, float(app.group(1)) if app else None))


# Each process writes what it saw (with --processes the requests happen in the worker processes, which
# may be stopped before `quitting` reaches them, so `test_stop` writes too).
@events.test_stop.add_listener
@events.quitting.add_listener
def _write_record(environment, **kwargs):
    with open(f"{RECORD}.{os.getpid()}", "w", encoding="utf-8") as handle:
        json.dump({"submitted": _submitted, "requests": _requests}, handle)
