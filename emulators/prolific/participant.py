"""A simulated Prolific participant: takes a place in a study at the emulator, is handed the study URL
(this site), and lands on the completion URL with the code the site gives, as a browser would."""

import json
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlparse


class ParticipantRefused(RuntimeError):
    def __init__(self, status, detail):
        super().__init__(f"{status}: {detail}")
        self.status = status


class EmulatedParticipant:
    def __init__(self, base_url, participant_id, *, approval_rate=99, approvals=500, country="United Kingdom",
                 languages=("English",)):
        self.base_url = base_url.rstrip("/")
        self.id = participant_id
        self._post("/_participant/register", {"participant_id": participant_id, "approval_rate": approval_rate,
                                              "approvals": approvals, "country": country,
                                              "languages": list(languages)})

    def start(self, study_id):
        """Take a place; returns (submission id, the study URL to open)."""
        found = self._post("/_participant/start", {"participant_id": self.id, "study_id": study_id})
        return found["submission_id"], found["url"]

    def give_back(self, study_id):
        """Return the place: while working, or after submitting ("return and cancel reward")."""
        return self._post("/_participant/return", {"participant_id": self.id, "study_id": study_id})

    def screened_out(self, study_id):
        return self._post("/_participant/screen-out", {"participant_id": self.id, "study_id": study_id})

    def complete(self, completion_url):
        """Follow the completion URL the site redirected to (Prolific's, here the emulator's)."""
        code = parse_qs(urlparse(completion_url).query).get("cc", [""])[0]
        return self._request(urllib.request.Request(f"{self.base_url}/submissions/complete?cc={code}",
                                                    headers={"X-Participant-Id": self.id}))

    def _post(self, path, payload):
        return self._request(urllib.request.Request(f"{self.base_url}{path}", data=json.dumps(payload).encode(),
                                                    headers={"Content-Type": "application/json"}))

    def _request(self, request):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            body = json.loads(error.read() or b"{}")
            raise ParticipantRefused(error.code, body.get("error", {}).get("detail", body)) from None
