"""The Prolific emulator as a stranger sees it: `manage.py prolific_emulator` in its own process, spoken to
with a plain HTTP client (urllib; nothing of this project imported), as the docs describe Prolific."""

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "a-token-for-tests"


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def api():
    port = _free_port()
    server = subprocess.Popen([sys.executable, "manage.py", "prolific_emulator", "--port", str(port), "--token",
                               TOKEN], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        server.kill()
        pytest.fail(f"the emulator did not listen: {server.stdout.read()}")
    yield base
    server.terminate()
    server.wait(10)


def call(base, method, path, body=None, token=TOKEN):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    url = path if path.startswith("http") else f"{base}/api/v1/{path}"
    request = urllib.request.Request(url, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


STUDY = {"name": "Counterfactual sentences", "internal_name": "test-1", "description": "Read and answer.",
         "external_study_url": "https://example.org/prolific/start/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
                               "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
         "prolific_id_option": "url_parameters", "total_available_places": 30, "estimated_completion_time": 10,
         "reward": 150, "completion_codes": [{"code": "ABC123", "code_type": "COMPLETED",
                                               "actions": [{"action": "MANUALLY_REVIEW"}]}]}


def test_the_emulator_answers_as_the_prolific_docs_say(api):
    status, body = call(api, "GET", "users/me/", token=None)
    assert status == 401 and body["error"]["status"] == 401

    status, body = call(api, "POST", "studies/", {**STUDY, "reward": 90})  # 90p for 10 minutes: £5.40 an hour
    assert status == 400 and "below the minimum" in body["error"]["detail"]

    status, study = call(api, "POST", "studies/", STUDY)
    assert status == 201 and study["status"] == "UNPUBLISHED"
    status, body = call(api, "GET", "studies/0123456789abcdef01234567/")
    assert status == 404 and "error" in body

    status, published = call(api, "POST", f"studies/{study['id']}/transition/", {"action": "PUBLISH"})
    assert status == 200 and published["status"] in ("PUBLISHING", "ACTIVE")
    assert call(api, "GET", f"studies/{study['id']}/")[1]["status"] in ("PUBLISHING", "ACTIVE")
    assert call(api, "GET", f"studies/{study['id']}/")[1]["status"] == "ACTIVE"

    # 25 participants take places; the list comes in pages linked by _links.next.
    for n in range(25):
        call(api, "POST", f"{api}/_participant/register",
             {"participant_id": f"p{n:02d}"}, token=None)
        status, started = call(api, "POST", f"{api}/_participant/start", {"participant_id": f"p{n:02d}",
                                                                           "study_id": study["id"]}, token=None)
        assert status == 200 and started["submission_id"] in started["url"]
    status, page = call(api, "GET", f"studies/{study['id']}/submissions/")
    assert status == 200 and page["meta"]["count"] == 25 and len(page["results"]) < 25
    seen = [s["id"] for s in page["results"]]
    while (page["_links"]["next"] or {}).get("href"):
        status, page = call(api, "GET", page["_links"]["next"]["href"])
        seen += [s["id"] for s in page["results"]]
    assert len(set(seen)) == 25

    status, body = call(api, "POST", "submissions/bonus-payments/",
                        {"study_id": study["id"], "csv_bonuses": "someone-else,1.00"})
    assert status == 400 and "someone-else" in body["error"]["detail"]
