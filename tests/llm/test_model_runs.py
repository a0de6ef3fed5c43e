"""A language model as one more annotator, against llama.cpp's OpenAI-compatible server (llama-cpp-python) serving
a tiny model the tests write with the `gguf` package (tests/llm/tiny_model.py): the answers stored once as the
model's, tokens and cost recorded, a run again going on where it stopped, the budget refused, and an unreachable
endpoint, a refused key and replies cut off each said clearly with nothing half-stored. The server lives in an
environment of its own (CROWDSET_LLM_PYTHON names its interpreter; .ci/run makes it from requirements-llm.txt)."""

import io
import json
import os
import socket
import subprocess
import time
import urllib.request
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from designs.items import Record
from designs.model_runs import SOURCE, Endpoint, ModelError, model_run, reap_stale_model_runs
from designs.models import ModelRun, OutsideAnswer
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from projects.services import design_project_create

LLM_PYTHON = os.environ.get("CROWDSET_LLM_PYTHON", "")
KEY = "test-key-not-secret"
DESIGN = """
title: Counterfactuals by a model
instructions: Does the sentence say what did not happen?
llm: {max_tokens: MAX, temperature: TEMPERATURE}
hits: {items_per_hit: 4, assignments_per_hit: 2, order: file}
annotation_schemes:
  - annotation_type: radio
    name: cf
    description: Is it counterfactual?
    label_requirement: {required: true}
    labels: ["yes", "no"]
"""
SENTENCES = ["Had it rained, we would have stayed in.", "It rained, so we stayed in.",
             "If I were taller, I would play.", "She plays every day."]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """llama.cpp's server on a free port with the tiny model, asking for KEY; its base URL."""
    if not LLM_PYTHON:
        if os.environ.get("CROWDSET_REQUIRE_LLM"):
            pytest.fail("CROWDSET_REQUIRE_LLM is set but CROWDSET_LLM_PYTHON names no interpreter with "
                        "llama-cpp-python")
        pytest.skip("set CROWDSET_LLM_PYTHON to a Python with llama-cpp-python[server] and gguf (pip install -r "
                    "requirements-llm.txt)")
    folder = tmp_path_factory.mktemp("llm")
    model = folder / "tiny.gguf"
    subprocess.run([LLM_PYTHON, str(Path(__file__).with_name("tiny_model.py")), str(model)], check=True,
                   timeout=120)
    port = _free_port()
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [LLM_PYTHON, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
         "--chat_format", "chatml", "--n_ctx", "8192", "--api_key", KEY, "--model_alias", "tiny"],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(120):
            try:
                request = urllib.request.Request(f"{url}/models", headers={"Authorization": f"Bearer {KEY}"})
                urllib.request.urlopen(request, timeout=2)
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail(f"llama.cpp's server stopped: {(folder / 'server.log').read_text()[-2000:]}")
                time.sleep(0.5)
        else:
            pytest.fail("llama.cpp's server did not answer within a minute")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _batch(max_tokens: int = 40, gold: bool = False, temperature: float = 0):
    records = [Record(id=f"s{number}", text=text, gold={"cf": "yes" if "would" in text else "no"} if gold else None)
               for number, text in enumerate(SENTENCES, 1)]
    source = DESIGN.replace("MAX", str(max_tokens)).replace("TEMPERATURE", str(temperature))
    _, batch = design_project_create(source=source, file_name="cf.yaml", records=records, free_slug=True)
    return batch_publish(batch=batch)


def _endpoint(url: str, **changes) -> Endpoint:
    return Endpoint(**{"url": url, "model": "tiny", "key": KEY, "price_in": Decimal("0.5"),
                       "price_out": Decimal("1.5"), "timeout": 60, **changes})


@pytest.mark.django_db
def test_the_model_answers_each_item_once_as_an_annotator_and_its_tokens_are_paid_for(server):
    batch = _batch()
    run = model_run(batch=batch, endpoint=_endpoint(server), concurrency=2)
    assert run.state == ModelRun.State.DONE and run.items == 4 and run.answered + len(run.refused) == 4
    assert run.answered >= 1, run.refused
    stored = list(OutsideAnswer.objects.filter(batch=batch, source=SOURCE))
    assert len(stored) == run.answered and {answer.annotator for answer in stored} == {run.annotator}
    assert run.annotator.startswith(f"tiny @ {server.split('/')[2]} · prompt ")
    # Under the schema a model that knows nothing still answers in the study's labels, read as a person's are.
    assert all(answer.answers["cf"] in ("yes", "no") and set(answer.answers) == {"cf"} for answer in stored)
    # One answer an item: its confidence is the probability the model gave the answer's tokens (llama.cpp's server
    # sends their log-probabilities).
    for answer in stored:
        assert answer.meta["confidence_from"] == "logprobs" and 0 < answer.meta["confidence"]["cf"] <= 1
    # The endpoint's own token counts, priced per thousand: the run's cost is its answers' and refusals'.
    assert run.tokens_in > 0 and run.tokens_out > 0
    assert run.cost == (Decimal("0.5") * run.tokens_in + Decimal("1.5") * run.tokens_out) / 1000
    assert sum(Decimal(answer.meta["cost"]) for answer in stored) <= run.cost <= run.estimate
    # A run again asks nothing answered before: each item is the model's once.
    again = model_run(batch=batch, endpoint=_endpoint(server))
    assert again.items == 4 - run.answered and OutsideAnswer.objects.filter(batch=batch).count() >= run.answered
    assert OutsideAnswer.objects.filter(batch=batch).values("item").distinct().count() == \
        OutsideAnswer.objects.filter(batch=batch).count()
    # The crowd's HITs are untouched: the model took no place and nobody was paid for it.
    assert not batch.payments.exists() and all(hit.assignments.count() == 0 for hit in batch.hits.all())


@pytest.mark.django_db
def test_a_reply_cut_off_is_refused_with_its_raw_text_and_nothing_stored(server, client):
    batch = _batch(max_tokens=2)
    run = model_run(batch=batch, endpoint=_endpoint(server), concurrency=4)
    assert run.answered == 0 and len(run.refused) == 4
    assert all(entry["reason"].startswith("the answer was cut off at max_tokens") for entry in run.refused)
    assert all(isinstance(entry["raw"], str) for entry in run.refused)
    assert not OutsideAnswer.objects.filter(batch=batch).exists()
    # The batch page says why, item by item.
    page = client_page(client, batch)
    assert "Why 4 answers were refused" in page and "item s1: the answer was cut off at max_tokens" in page


def client_page(client, batch):
    """The batch page as its project's organizer sees it."""
    from django.contrib.auth.models import User

    from accounts import roles
    from projects.models import Project

    organizer = User.objects.filter(username="org").first() or User.objects.create_user("org",
                                                                                           password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))
    project = Project.objects.get(batches=batch)
    project.created_by = organizer
    project.save(update_fields=["created_by"])
    client.force_login(organizer)
    return client.get(f"/projects/{project.slug}/batches/{batch.pk}/").content.decode()


@pytest.mark.django_db
def test_an_unusable_endpoint_is_said_clearly_and_nothing_is_half_stored(server):
    batch = _batch()
    with pytest.raises(ModelError, match="refused the key"):
        model_run(batch=batch, endpoint=_endpoint(server, key="wrong-key", max_retries=0))
    closed = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(ModelError, match="cannot reach it"):
        model_run(batch=batch, endpoint=_endpoint(closed, max_retries=0, timeout=5))
    assert not OutsideAnswer.objects.filter(batch=batch).exists()
    assert list(ModelRun.objects.filter(batch=batch).values_list("state", flat=True)) == ["failed", "failed"]
    # Over its budget a run is refused before anything is asked, saying what it could cost.
    with pytest.raises(ModelError, match=r"could cost up to \d+\.\d+ \(4 items.*over the budget of 0\.0001"):
        model_run(batch=batch, endpoint=_endpoint(server), budget=Decimal("0.0001"))
    assert ModelRun.objects.filter(batch=batch).count() == 2
    with pytest.raises(CommandError, match="refused the key"):
        call_command("design", "ask-model", str(batch.pk), "--url", server, "--model", "tiny")


@pytest.mark.django_db
def test_the_model_is_compared_with_the_crowd_from_the_command_line(server, monkeypatch):
    batch = _batch(gold=True)
    monkeypatch.setenv("TINY_KEY", KEY)
    out = io.StringIO()
    call_command("design", "ask-model", str(batch.pk), "--url", server, "--model", "tiny", "--key-env", "TINY_KEY",
                 "--estimate", "--json", stdout=out)
    plan = json.loads(out.getvalue())
    assert plan["items"] == 4 and plan["most_tokens_out"] == 160 and plan["answered_before"] == 0
    out = io.StringIO()
    call_command("design", "ask-model", str(batch.pk), "--url", server, "--model", "tiny", "--key-env", "TINY_KEY",
                 "--price-in", "0.5", "--price-out", "1.5", "--json", stdout=out)
    ran = json.loads(out.getvalue())
    assert ran["answered"] + ran["refused"] == 4 and Decimal(ran["cost"]) > 0
    # Two people answer every item: one says what the known answer says, the other always "no".
    for number, says in enumerate(("known", "no")):
        worker = Worker.objects.create(provider="inhouse", external_id=f"crowd-{number}")
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": item.gold_answer["cf"] if says == "known" else "no"
            for item in assignment.hit.ordered_items()})
    out = io.StringIO()
    call_command("design", "compare", str(batch.pk), "--json", stdout=out)
    found = json.loads(out.getvalue())
    assert found["model"] == ran["annotator"] and found["items_answered"] == ran["answered"]
    scheme = found["schemes"][0]
    assert scheme["scheme"] == "cf" and scheme["compared"] <= ran["answered"]
    assert sum(sum(row.values()) for row in scheme["confusion"].values()) == scheme["compared"]
    if scheme["compared"]:
        accuracy = scheme["accuracy"]
        assert 0 <= accuracy["low"] <= accuracy["value"] <= accuracy["high"] <= 1
    assert scheme["gold"]["items"] == ran["answered"] and scheme["alpha_crowd"] is not None
    assert found["model_cost"]["total"] == ran["cost"] and found["model_cost"]["tokens_in"] == ran["tokens_in"]
    assert found["model_cost"]["asked"]
    out = io.StringIO()
    call_command("design", "compare", str(batch.pk), stdout=out)
    assert f"{ran['annotator']} against the crowd on batch {batch.pk}" in out.getvalue()
    assert "  cf: " in out.getvalue() and "crowd alpha" in out.getvalue()
    # The project page's "Agreement and labels" step says it too (the figures its job computes).
    from reproductions.project_steps import _design_numbers

    said = _design_numbers(batch, lambda done, total: None)
    assert f"model {ran['annotator']}: {ran['answered']} item" in said and f"design compare {batch.pk}" in said
    assert "cf: the model agrees with the crowd's label on" in said or "no item has both" in said


@pytest.mark.django_db
def test_samples_give_a_confidence_and_the_position_check_counts_flips(server):
    batch = _batch()
    with pytest.raises(ModelError, match="3 samples at temperature 0 say the same 3 times"):
        model_run(batch=batch, endpoint=_endpoint(server), samples=3)
    batch = _batch(temperature=1.0)
    run = model_run(batch=batch, endpoint=_endpoint(server), samples=3, position_check=True, concurrency=4)
    stored = list(OutsideAnswer.objects.filter(batch=batch))
    assert run.answered == len(stored) >= 1 and run.annotator != model_run(
        batch=_batch(), endpoint=_endpoint(server), limit=1).annotator  # the majority of three is its own annotator
    for answer in stored:
        assert answer.meta["samples"] == 3 and answer.meta["confidence"]["cf"] in (0.3333, 0.6667, 1.0)
        assert answer.meta["confidence_from"] == "samples"
        assert answer.meta["position"]["compared"] == ["cf"] or "refused" in answer.meta["position"]
    # Four requests an item: three samples and the reversed one, each counted.
    assert run.tokens_in > 4 * 100 and run.estimate >= run.cost
    out = io.StringIO()
    call_command("design", "compare", str(batch.pk), "--model", run.annotator, "--json", stdout=out)
    scheme = json.loads(out.getvalue())["schemes"][0]
    flips = sum("cf" in answer.meta["position"].get("flipped", []) for answer in stored)
    assert scheme["position"] == {"compared": sum(answer.meta["position"].get("compared") == ["cf"]
                                                  for answer in stored), "flipped": flips}
    assert 1 / 3 - 0.001 <= scheme["confidence"] <= 1.0


@pytest.mark.django_db(transaction=True)
def test_a_run_in_the_background_is_a_project_job_with_its_progress(server, monkeypatch):
    from django.test import override_settings

    from jobs.models import Job

    batch = _batch()
    monkeypatch.setenv("TINY_KEY", KEY)
    with override_settings(JOBS_RUNNER="thread", JOB_HEARTBEAT_SECONDS=1):
        out = io.StringIO()
        call_command("design", "ask-model", str(batch.pk), "--url", server, "--model", "tiny", "--key-env",
                     "TINY_KEY", "--background", stdout=out)
        job = Job.objects.get(kind="project-model")
        assert out.getvalue().startswith(f"job {job.pk} asks the model") and "/projects/" in out.getvalue()
        deadline = time.monotonic() + 60
        while job.state not in (Job.State.DONE, Job.State.FAILED) and time.monotonic() < deadline:
            time.sleep(0.2)
            job.refresh_from_db()
    assert job.state == Job.State.DONE, job.message
    assert "tiny @" in job.message and job.result["done"] == job.result["total"] == 4
    assert job.options["key_env"] == "TINY_KEY" and KEY not in json.dumps(job.options)  # the key is never stored
    run = ModelRun.objects.get(pk=job.result["run"])
    assert run.answered + len(run.refused) == 4 and OutsideAnswer.objects.filter(batch=batch).count() == run.answered


@pytest.mark.django_db
def test_a_models_spend_counts_against_the_batchs_budget(client):
    """A run is refused when its most cost would take the batch past its budget (what the crowd has spent or been
    promised counted too), and what a run cost is counted when a bonus is claimed afterwards."""
    from hits.services.errors import CrowdError
    from hits.services.payments import budget_check, committed

    batch = _batch()
    crowd = committed(batch_ids=[batch.pk])
    batch.budget = crowd + Decimal("0.05")
    batch.save(update_fields=["budget"])
    expensive = _endpoint("http://127.0.0.1:9/v1", price_in=Decimal("10"), price_out=Decimal("10"))
    with pytest.raises(ModelError, match=rf"asking tiny \(4 items, up to .*over its budget of {batch.budget}"):
        model_run(batch=batch, endpoint=expensive)
    assert not ModelRun.objects.filter(batch=batch).exists()  # nothing asked, nothing written
    # A run that spent 0.04 (its tokens) leaves 0.01 of the budget: a bonus of 0.02 no longer fits.
    ModelRun.objects.create(batch=batch, annotator="tiny @ x · prompt 1", model="tiny", url="http://x/v1",
                            prompt_version="1", state=ModelRun.State.DONE, cost=Decimal("0.04"),
                            estimate=Decimal("0.30"))
    assert committed(batch_ids=[batch.pk]) == crowd + Decimal("0.04")
    with pytest.raises(CrowdError, match="over its budget"):
        budget_check(batch=batch, what="a bonus of 0.02", bonus=Decimal("0.02"))
    # A run still going holds its most cost.
    ModelRun.objects.create(batch=batch, annotator="tiny @ x · prompt 2", model="tiny", url="http://x/v1",
                            prompt_version="2", cost=Decimal("0.01"), estimate=Decimal("0.03"))
    assert committed(batch_ids=[batch.pk]) == crowd + Decimal("0.07")

    # The batch page says what the models spent beside the crowd's spending.
    assert "; language models 0.0700; budget" in client_page(client, batch)
    # A run whose process died (nothing written for longer than its lease) no longer holds its most cost, and the
    # beat ends it, saying so; a live one is left alone.
    running = ModelRun.objects.get(batch=batch, prompt_version="2")
    ModelRun.objects.filter(pk=running.pk).update(heartbeat=timezone.now() - timedelta(seconds=901))
    assert committed(batch_ids=[batch.pk]) == crowd + Decimal("0.05")
    live = ModelRun.objects.create(batch=batch, annotator="tiny @ x · prompt 3", model="tiny", url="http://x/v1",
                                   prompt_version="3", estimate=Decimal("0.001"), heartbeat=timezone.now())
    assert reap_stale_model_runs.name in {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert reap_stale_model_runs() == 1
    running.refresh_from_db()
    live.refresh_from_db()
    assert (running.state, live.state) == (ModelRun.State.FAILED, ModelRun.State.RUNNING)
    assert running.error.startswith("its process stopped (nothing written since ")
    assert running.error.endswith("over its lease of 900 s); ask again: it goes on where it stopped")
    assert committed(batch_ids=[batch.pk]) == crowd + Decimal("0.051")
    assert "tiny @ x · prompt 2</strong>: failed (its process stopped" in client_page(client, batch)


@pytest.mark.django_db(transaction=True)
def test_an_organizer_asks_a_model_from_the_batch_page_and_reads_what_went_wrong(server, chromium, live_server,
                                                                              monkeypatch):
    from django.contrib.auth.models import User
    from django.test import override_settings

    from accounts import roles
    from jobs.models import Job
    from projects.models import Project
    from tests.browser import axe_clean, log_in, screenshot
    from tests.test_accessibility import PHONE

    batch = _batch()
    organizer = User.objects.filter(username="org").first() or User.objects.create_user("org",
                                                                                           password="pass-word-1")
    organizer.groups.add(roles.group(roles.ORGANIZER))
    project = Project.objects.get(batches=batch)
    project.created_by = organizer
    project.save(update_fields=["created_by"])
    monkeypatch.setenv("TINY_KEY", KEY)
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    page_url = f"/projects/{project.slug}/batches/{batch.pk}/"

    def wait_for_job(count):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            jobs = list(Job.objects.filter(kind="project-model").order_by("pk"))
            if len(jobs) == count and jobs[-1].state in (Job.State.DONE, Job.State.FAILED):
                return jobs[-1]
            time.sleep(0.2)
        raise AssertionError("the model job did not end within a minute")

    with override_settings(JOBS_RUNNER="thread", JOB_HEARTBEAT_SECONDS=1):
        context = chromium.new_context(**PHONE)
        page = context.new_page()
        log_in(page, live_server, "org", "pass-word-1", page_url + "#models")
        page.fill("#id_ask-url", server)
        page.fill("#id_ask-model", "tiny")
        page.fill("#id_ask-key_env", "NOT_SET_KEY")
        page.fill("#id_ask-price_in", "0.5")
        page.get_by_role("button", name="Estimate the cost").click()
        assert "4 items to ask (0 answered before)" in page.inner_text("main")
        assert page.input_value("#id_ask-url") == server  # the form as it was estimated
        # A key the job cannot read: the job stops and the project page says why.
        page.get_by_role("button", name="Ask the model").click()
        failed = wait_for_job(1)
        assert failed.state == Job.State.FAILED
        page.goto(f"{live_server.url}/projects/{project.slug}/")
        assert "the environment variable NOT_SET_KEY is not set where the job runs" in page.inner_text("main")
        # With the key's variable set where the job runs, the model answers; the batch page lists the run.
        page.goto(f"{live_server.url}{page_url}#models")
        page.fill("#id_ask-key_env", "TINY_KEY")
        page.get_by_role("button", name="Ask the model").click()
        done = wait_for_job(2)
        assert done.state == Job.State.DONE, done.message
        page.goto(f"{live_server.url}{page_url}#models")
        row = page.locator("#model-runs li").first.inner_text()
        assert "tiny @" in row and "done" in row
        screenshot(page, "model-batch-phone")
        axe_clean(page, "model-batch")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.locator("#models").scroll_into_view_if_needed()
        screenshot(page, "model-batch-desktop", full_page=False)
        # Its answers shown to people, with a holdout, from the same section.
        page.fill("#id_suggest-holdout", "0.25")
        page.get_by_role("button", name="Show the suggestions").click()
        assert "25% of (annotator, item) pairs see none" in page.inner_text("main")
        assert page.locator("#suggesting").count() == 1
        page.get_by_role("button", name="Stop the suggestions").click()
        assert "Suggestions stopped for work claimed from now on." in page.inner_text("main")
        assert page.locator("#suggesting").count() == 0
        context.close()
    assert KEY not in json.dumps(Job.objects.get(pk=done.pk).options)


class _Busy:
    """An HTTP proxy in front of the model's server that answers the first chat completion 429 with Retry-After, as a
    hosted API over its rate limit does (or, `slow`, answers every request that many seconds late), and passes
    everything else on: the protocol, not the client, is faked."""

    def __init__(self, upstream: str, *, slow: float = 0):
        import http.server
        import threading

        self.upstream, self.seen, self.slow = upstream.rsplit("/v1", 1)[0], [], slow
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                owner.seen.append([self.path, time.monotonic(), 429])
                if owner.slow:  # a server that takes longer than the client waits
                    time.sleep(owner.slow)
                elif len(owner.seen) == 1:
                    payload = b'{"error": {"message": "Rate limit reached, retry after 1 s", "type": "rate_limit"}}'
                    self.send_response(429)
                    self.send_header("Retry-After", "1")
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                request = urllib.request.Request(owner.upstream + self.path, data=body, method="POST", headers={
                    "Content-Type": "application/json", "Authorization": self.headers.get("Authorization", "")})
                try:
                    with urllib.request.urlopen(request, timeout=60) as answer:
                        status, payload = answer.status, answer.read()
                except urllib.error.HTTPError as error:  # the server's own refusals pass through as they are
                    status, payload = error.code, error.read()
                owner.seen[-1][2] = status
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.mark.django_db
def test_a_429_is_asked_again_after_its_retry_after_and_each_answer_is_stored_once(server):
    busy = _Busy(server)
    try:
        batch = _batch()
        run = model_run(batch=batch, endpoint=_endpoint(busy.url), concurrency=1)
    finally:
        busy.close()
    assert run.state == ModelRun.State.DONE and run.answered + len(run.refused) == 4
    # The first request was refused with Retry-After: 1; the same item was asked again no sooner.
    (first, at_first, _), (again, at_again, _) = busy.seen[:2]
    assert first == again == "/v1/chat/completions" and at_again - at_first >= 0.9
    # Then the schema in the form this server takes (its 500 names response_format), and each item once.
    assert [status for *_, status in busy.seen] == [429, 500, 200, 200, 200, 200]
    assert OutsideAnswer.objects.filter(batch=batch).count() == run.answered


@pytest.mark.django_db
def test_a_run_stopped_by_anything_else_ends_saying_so_and_holds_no_more_than_it_spent(server):
    """Not only the endpoint's errors: whatever stops a run (here its progress callback failing after the first
    answer) ends it as failed with the reason, so its most cost is not held against the budget."""
    from hits.services.payments import committed

    batch = _batch()
    before = committed(batch_ids=[batch.pk])

    def progress(done, total):
        raise RuntimeError("the terminal went away")

    with pytest.raises(RuntimeError, match="the terminal went away"):
        model_run(batch=batch, endpoint=_endpoint(server, price_in=Decimal("1")), progress=progress)
    run = ModelRun.objects.get(batch=batch)
    assert (run.state, run.error) == (ModelRun.State.FAILED, "stopped by RuntimeError: the terminal went away")
    assert run.answered == 1 and run.finished is not None
    assert committed(batch_ids=[batch.pk]) == before + run.cost < before + run.estimate


@pytest.mark.django_db
def test_a_server_slower_than_the_timeout_stops_the_run_saying_so(server):
    slow = _Busy(server, slow=3)
    try:
        batch = _batch()
        with pytest.raises(ModelError, match=r"no answer within 1 s \(the timeout\); raise --timeout"):
            model_run(batch=batch, endpoint=_endpoint(slow.url, timeout=1, max_retries=0))
    finally:
        slow.close()
    assert not OutsideAnswer.objects.filter(batch=batch).exists()
    assert ModelRun.objects.get(batch=batch).state == ModelRun.State.FAILED
