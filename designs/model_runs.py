"""Running a language model over a design batch's items as one more annotator, through any OpenAI-compatible
chat-completions endpoint (vLLM, Ollama, llama.cpp's server, hosted APIs, gateways) with the `openai` client.

Each item is asked with the design's own instructions and questions (designs.llm), its answer constrained to the
JSON Schema the scheme types give, and read as a person's answers are. An answer is stored once, whole, as an
OutsideAnswer of source "model" under the model's name as an annotator (model @ endpoint · prompt version), so
reports, agreement and exports read it beside the crowd's and no HIT place, approval or payment ever sees it. A
run is priced before it starts (refused over its budget), records the tokens the endpoint says it used and their
cost, keeps a refused reply's raw text and reason, and goes on where an earlier run with the same model, endpoint
and prompt stopped. The client retries a 429 or 5xx after the server's Retry-After (max_retries).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from core.errors import CrowdsetError
from core.items import payload_from_json
from designs.answers import read_values, visible
from designs.llm import (
    Example,
    Refused,
    answer_schema,
    estimate_tokens,
    logprob_confidence,
    messages,
    prompt_version,
    read_reply,
    settle,
)
from designs.models import ModelRun, OutsideAnswer, batch_design
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import Record
from designs.task_type import record_of
from hits.models import Batch, Item
from hits.services.errors import CrowdError
from hits.services.payments import budget_check

SOURCE = OutsideAnswer.MODEL  # an OutsideAnswer's source for a model's answers
THOUSAND = Decimal(1000)


@dataclass(frozen=True)
class Endpoint:
    """Where a model runs and what it costs: the base URL of its OpenAI-compatible API (".../v1"), the model's name
    there, the key (read from the environment by the command, never stored) and the price per thousand tokens."""

    url: str
    model: str
    key: str = ""
    price_in: Decimal = Decimal(0)
    price_out: Decimal = Decimal(0)
    timeout: float = 120.0
    max_retries: int = 4

    def cost(self, tokens_in: int, tokens_out: int) -> Decimal:
        return (self.price_in * tokens_in + self.price_out * tokens_out) / THOUSAND

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc or self.url


@dataclass(frozen=True)
class Reply:
    """What the model said of one item: each sample's (content, finish reason), the options reversed once if the
    position check asked it, the tokens and time of them all, and the first sample's tokens with their
    log-probabilities where the server gave them."""

    item: int
    samples: list[tuple[str | None, str | None]]
    reversed: tuple[str | None, str | None] | None
    tokens_in: int
    tokens_out: int
    seconds: float
    logprobs: list[tuple[str, float]] | None = None


class ModelError(CrowdsetError):
    """The endpoint cannot be used (unreachable, the key refused, no such model): the run stops, saying which."""


def annotator_name(endpoint: Endpoint, version: str) -> str:
    return f"{endpoint.model} @ {endpoint.host} · prompt {version}"[:200]


def _records(batch: Batch) -> Iterator[tuple[int, Record, Any, bool]]:
    for pk, payload, gold, known in Item.objects.filter(batch=batch).order_by("pk").values_list(
            "pk", "payload", "is_gold", "gold_answer"):
        yield pk, record_of(payload_from_json(payload)), known, gold


def run_estimate(batch: Batch, endpoint: Endpoint, *, limit: int | None = None, samples: int = 1,
                 position_check: bool = False) -> dict[str, Any]:
    """What a run would ask and could cost: the items not yet answered by this model and prompt; the tokens in (an
    estimate, and a bound) and the most tokens out; a likely cost (the estimate in, a quarter of the most out) and
    the most it could cost at the endpoint's prices, which a budget is checked against."""
    design, _ = batch_design(batch.pk)
    model = endpoint.model or design.llm.model
    name = annotator_name(endpoint, prompt_version(design, model, samples))
    done = set(OutsideAnswer.objects.filter(batch=batch, source=SOURCE, annotator=name).values_list("item_id",
                                                                                                    flat=True))
    todo = [(pk, record) for pk, record, _, _ in _records(batch) if pk not in done][:limit]
    tokens = estimate_tokens(design, [record for _, record in todo], _examples(batch, design))
    asks = samples + position_check  # requests an item
    tokens = {key: value * asks for key, value in tokens.items()}
    return {"annotator": name, "items": len(todo), "answered_before": len(done), **tokens,
            "cost": endpoint.cost(tokens["tokens_in"], tokens["most_tokens_out"] // 4),
            "most_cost": endpoint.cost(tokens["most_tokens_in"], tokens["most_tokens_out"])}


def _examples(batch: Batch, design: Any) -> list[Example]:
    """The design's worked examples: its first known-answer items, each with its known answers."""
    if not design.llm.examples:
        return []
    found = []
    for _, record, known, _ in _records(batch):
        if isinstance(known, dict) and known:
            found.append(Example(record, known))
        if len(found) == design.llm.examples:
            break
    return found


def model_run(*, batch: Batch, endpoint: Endpoint, budget: Decimal | None = None, concurrency: int = 4,
              limit: int | None = None, samples: int = 1, position_check: bool = False,
              progress: Callable[[int, int], None] | None = None) -> ModelRun:
    """Ask the model every item of the batch it has not answered yet (at most `limit`), `concurrency` at a time:
    `samples` times each (the answer is each scheme's most given value, its confidence the share that gave it), and
    with `position_check` once more with every scheme's options the other way round (an answer that changes is a
    flip, counted on the answer).
    Refused (ModelError, nothing asked) when its most cost is over `budget`. Each answer is stored as it comes,
    whole; a reply that is no answer is kept on the run with its reason. An endpoint that cannot be used stops the
    run (state failed, the reason on it and in the ModelError); what was stored stays, and a run again goes on."""
    from openai import APIConnectionError, APIStatusError, APITimeoutError, AuthenticationError, NotFoundError, OpenAI

    design, _ = batch_design(batch.pk)
    model = endpoint.model or design.llm.model
    if not model:
        raise ModelError("name the model: --model, or llm.model in the design file")
    if samples > 1 and design.llm.temperature == 0:
        raise ModelError(f"{samples} samples at temperature 0 say the same {samples} times; set llm.temperature "
                         f"above 0 in the design (0.7 is usual) to measure agreement over samples")
    endpoint = Endpoint(**{**endpoint.__dict__, "model": model})
    version = prompt_version(design, model, samples)
    plan = run_estimate(batch, endpoint, limit=limit, samples=samples, position_check=position_check)
    if budget is not None and plan["most_cost"] > budget:
        raise ModelError(f"this run could cost up to {plan['most_cost']:.4f} ({plan['items']} items, at most "
                         f"{plan['most_tokens_in']} tokens in and {plan['most_tokens_out']} out), over the budget "
                         f"of {budget}; raise --budget, lower llm.max_tokens or ask fewer items with --limit")
    name = plan["annotator"]
    with transaction.atomic():
        # The run's most cost is promised from here until it ends (models_spent): with the batch row locked, two runs,
        # or a run and a bonus, never both fit under the same budget.
        locked = Batch.objects.select_for_update().get(pk=batch.pk)
        model_runs_reap(batch_ids=[batch.pk])  # a run killed before this one is said to have stopped
        try:
            budget_check(batch=locked, what=f"asking {model} ({plan['items']} items, up to {plan['most_cost']:.4f})",
                         other=plan["most_cost"])
        except CrowdError as error:
            raise ModelError(str(error)) from None
        run = ModelRun.objects.create(batch=batch, annotator=name, model=model, url=endpoint.url,
                                      prompt_version=version, items=plan["items"], estimate=plan["most_cost"],
                                      heartbeat=timezone.now(), lease_seconds=_lease(endpoint, samples,
                                                                                     position_check))
    done = set(OutsideAnswer.objects.filter(batch=batch, source=SOURCE, annotator=name).values_list("item_id",
                                                                                                    flat=True))
    todo = [(pk, record) for pk, record, _, _ in _records(batch) if pk not in done][:limit]
    records = dict(todo)
    examples = _examples(batch, design)
    schemas = {reverse: {"name": "answers", "schema": answer_schema(design, reverse), "strict": True}
               for reverse in (False, True)}
    client = OpenAI(base_url=endpoint.url, api_key=endpoint.key or "none", timeout=endpoint.timeout,
                    max_retries=endpoint.max_retries)

    # Servers differ in how they take a schema: OpenAI, vLLM and llama.cpp's own server as json_schema,
    # llama-cpp-python's server as json_object with a schema. The first item is asked once without retries in the
    # first form; a server that refuses that form is asked in the other for the whole run.
    def shape(form: str, reverse: bool) -> dict[str, Any]:
        schema = schemas[reverse]
        return {"type": "json_schema", "json_schema": schema} if form == "json_schema" else {
            "type": "json_object", "schema": schema["schema"]}

    # One answer is asked with its tokens' log-probabilities, its confidence; several samples give theirs by agreement.
    logprobs = [samples == 1]

    def ask(pk: int, form: str, asking: Any = client) -> Reply:
        started = time.monotonic()
        said: list[tuple[str | None, str | None]] = []
        tokens = [0, 0]
        spelled = None
        for number, reverse in enumerate([False] * samples + [True] * position_check):
            found = asking.chat.completions.create(
                model=model, messages=messages(design, records[pk], examples, reverse),
                response_format=shape(form, reverse), temperature=design.llm.temperature,
                max_tokens=design.llm.max_tokens,
                **({"logprobs": True, "top_logprobs": 1} if logprobs[0] and not number else {}))
            said.append((found.choices[0].message.content, found.choices[0].finish_reason))
            tokens[0] += found.usage.prompt_tokens if found.usage else 0
            tokens[1] += found.usage.completion_tokens if found.usage else 0
            given = getattr(found.choices[0], "logprobs", None)
            if not number and given is not None and given.content:
                spelled = [(entry.token, entry.logprob) for entry in given.content]
        return Reply(pk, said[:samples], said[samples] if position_check else None, tokens[0], tokens[1],
                     time.monotonic() - started, spelled)

    try:
        pending, form = list(records), "json_schema"
        if pending:
            first, busy = None, 0
            while first is None:
                try:
                    first = ask(pending[0], form, client.with_options(max_retries=0))
                except APIStatusError as error:
                    if error.status_code in (401, 403, 404):
                        raise
                    if "logprobs" in str(error.message) and logprobs[0]:
                        logprobs[0] = False  # a server that gives none: confidence needs --samples
                    elif "response_format" in str(error.message) and form == "json_schema":
                        form = "json_object"
                    elif (error.status_code == 429 or error.status_code >= 500) and busy < endpoint.max_retries:
                        busy += 1  # busy: asked again after the wait the server names, as the client does
                        time.sleep(_retry_after(error, busy))
                    else:
                        raise
            _store(run, first, design, records[first.item], endpoint)
            if progress is not None:
                progress(1, len(records))
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            # Answers are written here, in the caller's thread, as each comes: the workers only wait on the model.
            for count, reply in enumerate(pool.map(lambda pk: ask(pk, form), pending[1:]), 2):
                _store(run, reply, design, records[reply.item], endpoint)
                if progress is not None:
                    progress(count, len(records))
    except AuthenticationError:
        _failed(run, f"{endpoint.url} refused the key; set the right one in the environment variable the command "
                     f"names (--key-env)")
    except NotFoundError:
        _failed(run, f"{endpoint.url} has no model {model!r} (or no chat completions there); check --model and "
                     f"that the URL ends at the API's root (…/v1)")
    except APITimeoutError:  # before APIConnectionError, which it is a kind of
        _failed(run, f"{endpoint.url}: no answer within {endpoint.timeout:g} s (the timeout); raise --timeout or "
                     f"check that the server is not overloaded")
    except APIConnectionError as error:
        _failed(run, f"{endpoint.url}: cannot reach it ({error}); check the URL and that the server runs")
    except APIStatusError as error:
        _failed(run, f"{endpoint.url} answered {error.status_code}: {error.message}")
    except BaseException as error:
        # Anything else (a bug, a database error, Ctrl-C) ends the run too: left running, it would hold its most
        # cost against the budgets until its lease ran out.
        ModelRun.objects.filter(pk=run.pk, state=ModelRun.State.RUNNING).update(
            state=ModelRun.State.FAILED, finished=timezone.now(),
            error=f"stopped by {type(error).__name__}: {error}"[:2000])
        raise
    run.state, run.finished = ModelRun.State.DONE, timezone.now()
    run.save(update_fields=["state", "finished"])
    return run


def _store(run: ModelRun, reply: Reply, design: Any, record: Record, endpoint: Endpoint) -> None:
    cost = endpoint.cost(reply.tokens_in, reply.tokens_out)
    run.tokens_in += reply.tokens_in
    run.tokens_out += reply.tokens_out
    run.cost += cost
    run.seconds += reply.seconds
    readings, reasons, problems = [], [], []
    for content, finish in reply.samples:
        try:
            answers, left_out = read_reply(design, record, content, finish)
        except Refused as refused:
            reasons.append(str(refused))
        else:
            readings.append(answers)
            problems += left_out
    if not readings:
        raw = reply.samples[0][0] if reply.samples else ""
        run.refused = [*run.refused, {"item": record.id, "reason": reasons[0], "raw": (raw or "")[:4000]}]
        run.heartbeat = timezone.now()
        run.save(update_fields=["tokens_in", "tokens_out", "cost", "seconds", "refused", "heartbeat"])
        return
    meta: dict[str, Any] = {"tokens_in": reply.tokens_in, "tokens_out": reply.tokens_out, "cost": str(cost),
                            "seconds": round(reply.seconds, 3), "run": run.pk}
    answers = readings[0]
    if len(reply.samples) > 1:
        settled, confidence = settle(design, readings, len(reply.samples))
        # Each scheme's majority, read again together: what one sample's answers hide or need holds for the whole.
        answers, dropped = read_values(design, record, settled)
        answers = {name: value for name, value in answers.items() if visible(scheme_of(design, name), answers)}
        problems += dropped
        meta.update(samples=len(reply.samples), confidence={name: confidence[name] for name in answers},
                    confidence_from="samples")
    elif reply.logprobs:
        confidence = logprob_confidence(reply.samples[0][0], reply.logprobs)
        if confidence:
            meta.update(confidence={name: confidence[name] for name in answers if name in confidence},
                        confidence_from="logprobs")
    if reply.reversed is not None:
        try:
            other, _ = read_reply(design, record, *reply.reversed)
        except Refused as refused:
            meta["position"] = {"refused": str(refused)}
        else:
            compared = [name for name in answers if name in other and SCHEME_TYPES.of(
                scheme_of(design, name)).one_label(scheme_of(design, name))]
            meta["position"] = {"compared": compared, "flipped": [name for name in compared
                                                                  if other[name] != answers[name]]}
    if problems:
        meta["left_out"] = dict(problems)
    OutsideAnswer.objects.create(batch=run.batch, item_id=reply.item, source=SOURCE, annotator=run.annotator,
                                 answers=answers, given=timezone.now(), meta=meta)
    run.answered += 1
    run.heartbeat = timezone.now()
    run.save(update_fields=["tokens_in", "tokens_out", "cost", "seconds", "refused", "answered", "heartbeat"])


def _retry_after(error: Any, attempt: int) -> float:
    """The seconds a busy server asks to be left alone (Retry-After, in seconds), else a doubling wait from half a
    second; never more than a minute."""
    try:
        return min(60.0, float(error.response.headers.get("retry-after", "")))
    except (AttributeError, TypeError, ValueError):
        return min(60.0, 0.5 * 2 ** (attempt - 1))


def models_spent(batch_ids: Sequence[int]) -> Decimal:
    """What models cost the batches (registered in hits.extensions.SPENDING, so every budget counts it): a finished
    run's cost by its tokens, a running one's most cost (what it may still spend is promised), a run whose process
    died (stale) its cost alone."""
    total, now = Decimal(0), timezone.now()
    for run in ModelRun.objects.filter(batch_id__in=batch_ids).only("state", "cost", "estimate", "started",
                                                                     "heartbeat", "lease_seconds"):
        promised = run.state == ModelRun.State.RUNNING and not run.stale(now)
        total += max(run.cost, run.estimate) if promised else run.cost
    return total


def model_runs_reap(*, batch_ids: Sequence[int] | None = None) -> int:
    """Mark failed the running model runs whose process died (no answer stored within their lease), saying so: a
    run again goes on where they stopped. The tokens of the answers they were waiting on when killed were never
    recorded, so their cost may be that much short."""
    now, reaped = timezone.now(), 0
    runs = ModelRun.objects.filter(state=ModelRun.State.RUNNING)
    for run in runs.filter(batch_id__in=batch_ids) if batch_ids is not None else runs:
        if run.stale(now):
            last = run.heartbeat or run.started
            reaped += ModelRun.objects.filter(pk=run.pk, state=ModelRun.State.RUNNING).update(
                state=ModelRun.State.FAILED, finished=now,
                error=f"its process stopped (nothing written since {last:%Y-%m-%d %H:%M:%S} UTC, over its lease of "
                      f"{run.lease_seconds} s); ask again: it goes on where it stopped")
    return reaped


@shared_task(name="designs.tasks.reap_stale_model_runs")
def reap_stale_model_runs() -> int:
    """Beat: runs whose process died end, so their most cost is no longer counted and the page says so."""
    return model_runs_reap()


def _lease(endpoint: Endpoint, samples: int, position_check: bool) -> int:
    """How long a live run may go without storing an answer: twice the longest one item can take (each of its asks
    timed out and retried, each retry after the longest wait), and a minute besides."""
    asks = samples + int(position_check)
    return int(2 * asks * (endpoint.timeout + 60) * (endpoint.max_retries + 1) + 60)


def scheme_of(design: Any, name: str) -> Any:
    return next(scheme for scheme in design.annotation_schemes if scheme.name == name)


def _failed(run: ModelRun, why: str) -> None:
    run.state, run.error, run.finished = ModelRun.State.FAILED, why, timezone.now()
    run.save(update_fields=["state", "error", "finished"])
    raise ModelError(why)
