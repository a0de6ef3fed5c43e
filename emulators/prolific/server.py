"""The Prolific emulator's HTTP face: the researcher API of ../shared/docs/prolific-api.md under /api/v1/,
token auth, Prolific's list and error shapes, signed webhooks, and fault injection per operation.

Participants (simulated, or a browser in a test) use the emulator-only paths: `POST /_participant/register
{"participant_id", "approval_rate", "approvals", "country", "languages"}`, `POST /_participant/start
{"participant_id", "study_id"}` (→ the study URL with PROLIFIC_PID, STUDY_ID and SESSION_ID filled in),
`POST /_participant/return {"participant_id", "study_id"}` (while working, or after submitting: "return and
cancel reward"), and `GET /submissions/complete?cc=CODE` with an `X-Participant-Id` header,
where Prolific's app.prolific.com sends a participant who finished. Faults: `POST /_faults
{"bonus.pay": {"drop": 0.1, "throttle": 0.1, "502": 0.05}}`: `throttle` answers 429 with Retry-After and `error`
503, both before the work; `drop`, `502`, `504` and `timeout` do the work and then lose its answer
(emulators.faults).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from decimal import Decimal
from urllib.parse import parse_qs, urlencode, urlparse

from emulators import serving
from emulators.faults import AFTER, Faults
from emulators.prolific.state import ApiError, Workspace

PAGE_SIZE = 20
ID = r"([0-9a-f]{24})"

# (method, path under /api/v1/, operation name for faults, call(workspace, match, body, query) -> (status, body))
ROUTES = [
    ("GET", r"users/me/", "users.me", lambda w, m, b, q: w.me()),
    ("GET", r"workspaces/", "workspaces.list", lambda w, m, b, q: w.workspaces()),
    ("GET", rf"workspaces/{ID}/balance/", "workspaces.balance", lambda w, m, b, q: w.workspace_balance(m[1])),
    ("GET", rf"workspaces/{ID}/projects/", "projects.list", lambda w, m, b, q: w.projects(m[1])),
    ("GET", r"filters/", "filters.list", lambda w, m, b, q: w.filters()),
    ("POST", r"studies/", "studies.create", lambda w, m, b, q: (201, w.study_create(b))),
    ("GET", r"studies/", "studies.list", lambda w, m, b, q: w.studies_list(q.get("status"))),
    ("GET", rf"studies/{ID}/", "studies.get", lambda w, m, b, q: w.study(m[1])),
    ("PATCH", rf"studies/{ID}/", "studies.update", lambda w, m, b, q: w.study_update(m[1], b)),
    ("POST", rf"studies/{ID}/transition/", "studies.transition",
     lambda w, m, b, q: w.study_transition(m[1], b.get("action", ""))),
    ("GET", rf"studies/{ID}/submissions/", "submissions.list", lambda w, m, b, q: w.study_submissions(m[1])),
    ("GET", rf"studies/{ID}/submissions/counts/", "submissions.counts",
     lambda w, m, b, q: w.submission_counts(m[1])),
    ("POST", r"submissions/bulk-approve/", "submissions.bulk_approve", lambda w, m, b, q: w.bulk_approve(b)),
    ("POST", r"submissions/bonus-payments/", "bonus.create", lambda w, m, b, q: (201, w.bonus_create(b))),
    ("GET", rf"submissions/{ID}/", "submissions.get", lambda w, m, b, q: w.submission(m[1])),
    ("POST", rf"submissions/{ID}/transition/", "submissions.transition",
     lambda w, m, b, q: w.submission_transition(m[1], b)),
    ("POST", rf"submissions/{ID}/request-return/", "submissions.request_return",
     lambda w, m, b, q: w.request_return(m[1], b)),
    ("POST", rf"bulk-bonus-payments/{ID}/pay/", "bonus.pay", lambda w, m, b, q: (202, w.bonus_pay(m[1]))),
    ("POST", r"participant-groups/", "groups.create", lambda w, m, b, q: (201, w.group_create(b))),
    ("GET", r"participant-groups/", "groups.list", lambda w, m, b, q: w.groups_list(q.get("workspace_id"))),
    ("GET", rf"participant-groups/{ID}/participants/", "groups.members", lambda w, m, b, q: w.group_members(m[1])),
    ("POST", rf"participant-groups/{ID}/participants/", "groups.add", lambda w, m, b, q: w.group_add(m[1], b)),
    ("DELETE", rf"participant-groups/{ID}/participants/", "groups.remove",
     lambda w, m, b, q: w.group_remove(m[1], b)),
    ("POST", r"hooks/secrets/", "hooks.secret", lambda w, m, b, q: (201, w.hook_secret_create(b))),
    ("POST", rf"hooks/subscriptions/{ID}/", "hooks.confirm", lambda w, m, b, q: w.subscription_confirm(m[1], b)),
]
COMPILED = [(method, re.compile(pattern + "$"), name, call) for method, pattern, name, call in ROUTES]
LISTS = {"studies.list", "submissions.list", "groups.list", "groups.members", "workspaces.list", "projects.list",
         "filters.list"}


class Handler(serving.Handler):
    server_version = "ProlificEmulator/1.0"

    @staticmethod
    def json_default(value):
        # Amounts with fractions of a minor unit (fees) go out as JSON numbers, as Prolific sends them.
        return float(value) if isinstance(value, Decimal) else str(value)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_DELETE(self):
        self._handle("DELETE")

    def _handle(self, method):
        url = urlparse(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._send(400, ApiError(400, "Invalid request", "The body is not JSON.").body())
        workspace = self.server.workspace
        if url.path.startswith("/_participant/") or url.path == "/submissions/complete" or url.path == "/_faults":
            return self._participant(method, url, body)
        if not url.path.startswith("/api/v1/"):
            return self._send(404, {"message": "Not found", "detail": f"No such path {url.path}."})
        if self.headers.get("Authorization", "") != f"Token {workspace.token}":
            return self._send(401, {"error": {"status": 401, "error_code": 140101, "title": "Not authenticated",
                                              "detail": "Authentication credentials were not provided or are "
                                                        "invalid.", "additional_information": ""}})
        path = url.path[len("/api/v1/"):]
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        for route_method, pattern, name, call in COMPILED:
            match = pattern.match(path)
            if match is None or route_method != method:
                continue
            fault = self.server.faults.draw(name)
            if fault == "throttle":
                return self._send(429, ApiError(429, "Too many requests", "Request was throttled.").body(),
                                  {"Retry-After": self.server.faults.retry_after})
            if fault == "error":
                return self._send(503, ApiError(503, "Service unavailable", "Try again later.").body())
            self.server.faults.pause(name)
            try:
                with workspace.lock:
                    result = call(workspace, match, body, query)
            except ApiError as error:
                return self._send(error.status, error.body())
            self.server.faults.worked(name)
            status, payload = result if isinstance(result, tuple) else (200, result)
            if fault in AFTER:  # done, and the answer lost on the way back
                return self.server.faults.lose_answer(self, fault, self._send_text)
            if name in LISTS:
                payload = self._page(payload, url, query)
            return self._send(status, payload)
        if method == "POST" and path == "hooks/subscriptions/":
            try:
                with workspace.lock:
                    subscription, confirm = workspace.subscription_create(body)
            except ApiError as error:
                return self._send(error.status, error.body())
            return self._send(201, subscription, {"X-Hook-Secret": confirm})
        return self._send(404, ApiError(404, "Not found", f"No such endpoint: {method} /api/v1/{path}").body())

    def _page(self, items, url, query):
        """Prolific's list shape: results, _links (follow next.href until null) and meta.count."""
        page = max(1, int(query.get("page", "1") or 1))
        last = max(1, -(-len(items) // PAGE_SIZE))
        host = f"http://{self.headers.get('Host', 'localhost')}{url.path}"

        def link(number):
            return {"href": f"{host}?{urlencode({**query, 'page': number})}"} if 1 <= number <= last else None

        return {"results": items[(page - 1) * PAGE_SIZE:page * PAGE_SIZE],
                "_links": {"self": link(page), "next": link(page + 1) if page < last else {"href": None},
                           "previous": link(page - 1) if page > 1 else {"href": None}, "last": link(last)},
                "meta": {"count": len(items)}}

    def _participant(self, method, url, body):
        workspace = self.server.workspace
        try:
            with workspace.lock:
                if url.path == "/_faults":
                    self.server.faults.set(body)
                    return self._send(200, {"faults": body})
                if url.path == "/_participant/register":
                    return self._send(200, workspace.participant_register(body))
                if url.path == "/_participant/start":
                    return self._send(200, workspace.participant_start(body["participant_id"], body["study_id"]))
                if url.path == "/_participant/return":
                    return self._send(200, workspace.participant_return(body["participant_id"], body["study_id"]))
                if url.path == "/_participant/screen-out":
                    return self._send(200, workspace.participant_screen_out(body["participant_id"],
                                                                            body["study_id"]))
                if url.path == "/submissions/complete":
                    code = parse_qs(url.query).get("cc", [""])[0]
                    return self._send(200, workspace.participant_complete(self.headers.get("X-Participant-Id", ""),
                                                                          code))
        except ApiError as error:
            return self._send(error.status, error.body())
        return self._send(404, {"message": "Not found", "detail": f"No such path {url.path}."})


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """Prolific's webhook signature: base64 of HMAC-SHA256 over timestamp + body."""
    return base64.b64encode(hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()).decode()


class ProlificEmulator(serving.Emulator):
    """Run in a thread for tests (`with ProlificEmulator() as emulator:`), or serve forever from
    `manage.py prolific_emulator`. Events go to confirmed webhook subscriptions from a sender thread."""

    def __init__(self, host="127.0.0.1", port=0, *, token="emulator-token", currency="GBP", balance=10_000_00,
                 seed=0, verbose=False, clock=None, vat_region="uk", timeout_seconds=2.0):
        self.workspace = Workspace(token=token, currency=currency, balance=balance, clock=clock,
                                   vat_region=vat_region)
        super().__init__(Handler, host, port, Faults(seed, timeout_seconds=timeout_seconds), verbose,
                         workspace=self.workspace)
        self.delivered: list[dict] = []  # every webhook sent, for tests: {event, status}
        # Events taken from the outbox and not yet sent: a test that reads delivered + outbox + sending under the
        # workspace lock sees every event once raised, wherever the sender thread is.
        self.sending: list[tuple[str, dict]] = []
        self._running = False

    @property
    def api_url(self):
        return f"{self.url}/api/v1/"

    @property
    def token(self):
        return self.workspace.token

    def start(self):
        self._running = True
        threading.Thread(target=self._send_events, daemon=True).start()
        return super().start()

    def stop(self):
        self._running = False
        super().stop()

    def _send_events(self):
        while self._running:
            with self.workspace.lock:
                events, self.workspace.outbox = self.workspace.outbox, []
                self.sending = events
                targets = [(s["event_type"], s["target_url"]) for s in self.workspace.subscriptions.values()
                           if s["is_enabled"]]
                secret = self.workspace.hook_secret
            for event_type, payload in events:
                for kind, target in targets:
                    if kind == event_type:
                        self._deliver(target, secret, payload)
            with self.workspace.lock:
                self.sending = []
            time.sleep(0.05)

    def _deliver(self, target, secret, payload, attempts=3):
        body = json.dumps(payload).encode()
        event_id = str(uuid.uuid4())
        for _ in range(attempts):  # Prolific retries for a day; here a few quick tries
            timestamp = str(int(time.time()))
            request = urllib.request.Request(target, data=body, method="POST", headers={
                "Content-Type": "application/json", "X-Prolific-Request-Timestamp": timestamp,
                "X-Prolific-Request-Signature": sign(secret, timestamp, body), "X-Event-ID": event_id})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    self.delivered.append({"event": payload, "status": response.status, "id": event_id})
                    return
            except urllib.error.HTTPError as error:
                self.delivered.append({"event": payload, "status": error.code, "id": event_id})
                if error.code < 500:
                    return
            except OSError:
                self.delivered.append({"event": payload, "status": 0, "id": event_id})
            time.sleep(0.2)
