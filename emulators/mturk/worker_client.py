"""A simulated MTurk worker: finds HITs, accepts one and submits the
externalSubmit form, over HTTP against the emulator, as a browser would."""

import json
import urllib.error
import urllib.parse
import urllib.request


class WorkerRefused(RuntimeError):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class EmulatedWorker:
    def __init__(self, base_url, worker_id, *, locale="US", approval_rate=99, approved=5000, masters=False):
        self.base_url = base_url.rstrip("/")
        self.worker_id = worker_id
        self._post_json("/_worker/register", {"WorkerId": worker_id, "Locale": locale, "ApprovalRate": approval_rate,
                                              "Approved": approved, "Masters": masters})

    def assignable_hits(self):
        query = urllib.parse.urlencode({"workerId": self.worker_id})
        return self._request(urllib.request.Request(f"{self.base_url}/_worker/hits?{query}"))["HITs"]

    def take_qualification_test(self, type_id, answers):
        """Answer a qualification test ({question id: selection id}); returns the score MTurk granted."""
        return self._post_json("/_worker/qualification", {"WorkerId": self.worker_id, "QualificationTypeId": type_id,
                                                          "Answers": answers})["IntegerValue"]

    def accept(self, hit_id):
        return self._post_json("/_worker/accept", {"WorkerId": self.worker_id, "HITId": hit_id})["AssignmentId"]

    def submit(self, assignment_id, fields, *, as_worker=None):
        data = urllib.parse.urlencode({"assignmentId": assignment_id, **fields}).encode()
        request = urllib.request.Request(f"{self.base_url}/mturk/externalSubmit", data=data, headers={
            "Content-Type": "application/x-www-form-urlencoded", "X-Worker-Id": as_worker or self.worker_id})
        return self._request(request)

    def _post_json(self, path, payload):
        request = urllib.request.Request(f"{self.base_url}{path}", data=json.dumps(payload).encode(),
                                         headers={"Content-Type": "application/json"})
        return self._request(request)

    def _request(self, request):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise WorkerRefused(error.code, json.loads(error.read() or b"{}").get("message", "")) from None
