"""Prolific (researcher API v1) behind the provider interface.

A batch is one study; its places are the batch's HITs × assignments. A participant opens the study's
external URL on this site (hits.prolific_views), is bound to their submission there, and takes a HIT
through the same claim engine as in-house annotators; the HIT ids below are ours, not Prolific's. When
they submit, the site sends them to Prolific's completion URL with the study's code.

Transport: `Authorization: Token`, JSON, lists followed through `_links.next`. A 429 says the call was not
done: it is sent again after Retry-After (or a backoff). A 5xx, a timeout or a dropped connection does not say
whether Prolific did the work: a call that is harmless to repeat (a read, a transition, a PATCH of places) is
asked again, and one that is not (making a study, a participant group or a bonus set; paying a bonus set) is
never sent twice blind. Its caller looks the outcome up first: a study by its internal name, a group by its
name, a bonus in the submission's `bonus_payments` (hits.services.bonuses), and only then decides.

Places follow Prolific: every sync gives each submission's status to its assignment here (returned after
submitting: the work is withdrawn; rejected, or timed out after the work was stored: the place is free again)
and checks the count of places taken against the study's. VAT on the platform fee is counted by where the
workspace is registered (PROLIFIC_VAT_REGION).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
import uuid
from collections.abc import Iterable, Sequence
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.utils.dateparse import parse_datetime

from core.errors import CrowdsetError
from hits.extensions import study_filters
from hits.models import Assignment, Batch, Hit, Item, Payment, Worker
from hits.providers.base import (
    LostAnswer,
    NotReviewable,
    Provider,
    ProviderBusy,
    ProviderError,
    RemoteBonus,
    RemotePlace,
    money,
)
from hits.task_types import get_task_type

logger = logging.getLogger(__name__)

FEE_RATE = Decimal(1) / 3  # Prolific's service fee on rewards and bonuses
FLOOR = {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}  # reward an hour, refused below
RECOMMENDED = {"GBP": Decimal("9.00"), "USD": Decimal("12.00")}
UK_VAT = Decimal("0.20")
# Prolific's submission statuses in RemotePlace's words, and whether Prolific counts the place as taken: returned,
# timed-out and screened-out submissions give their place back, and so does a rejected one (Prolific opens a new
# place for it). Each sync checks the count this gives against the study's own `places_taken`.
STATUS = {"RESERVED": ("claimed", True), "ACTIVE": ("claimed", True), "AWAITING REVIEW": ("submitted", True),
          "APPROVED": ("approved", True), "PARTIALLY APPROVED": ("approved", True), "REJECTED": ("rejected", False),
          "RETURNED": ("returned", False), "TIMED-OUT": ("timed-out", False), "SCREENED OUT": ("screened-out", False),
          "PROCESSING": ("claimed", True)}  # undocumented and brief, the reference says
CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK", "LOW_EFFORT",
              "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
MIN_REJECTION = 100  # characters Prolific asks of a rejection message
BLOCK_GROUP = "crowdset: blocked"
FINAL_STUDY = ("COMPLETED",)


def _fee(amount: Decimal) -> Decimal:
    """As Prolific charges it: a third of the amount in minor units, to two decimal places of a minor unit,
    rounded up (850 -> 283.34). Kept exact, in major units (2.8334): estimates and the ledger add the
    fractions up and round once, where a figure is shown."""
    return (amount * 100 * FEE_RATE).quantize(Decimal("0.01"), rounding=ROUND_CEILING) / 100


def vat_rate(region: str, vat_number: bool, rate: Decimal) -> Decimal:
    """The VAT Prolific charges on its fee for a workspace registered in `region` (see settings)."""
    if region == "uk":
        return UK_VAT  # with or without a VAT number
    if region == "eu":
        return Decimal(0) if vat_number else rate  # reverse-charged with a valid VAT number
    return Decimal(0)


def _remote_place(found: dict) -> RemotePlace:
    status, holds = STATUS.get(found["status"], ("claimed", True))
    started = parse_datetime(found["started_at"]) if found.get("started_at") else None
    return RemotePlace(found["id"], found["participant_id"], status, holds, started)


class ProlificProvider(Provider):
    name = "prolific"
    pulls_submissions = False  # the work arrives on this site's pages; Prolific holds statuses and money
    lists_assignments = True

    def __init__(self, api_url: str, token: str, *, workspace: str = "", project: str = "", external_url: str = "",
                 complete_url: str = "https://app.prolific.com/submissions/complete", currency: str = "GBP",
                 backoff: float = 1.0, attempts: int = 8, session: requests.Session | None = None,
                 timeout: float = 30, vat: Decimal = UK_VAT):
        self.api_url = api_url.rstrip("/") + "/"
        self.token = token
        self.workspace, self.project = workspace, project
        self.external_url = external_url.rstrip("/")
        self.complete_url = complete_url
        self.currency = currency
        self.backoff, self.attempts, self.timeout = backoff, attempts, timeout
        self.vat_rate = vat
        self.session = session or requests.Session()

    @classmethod
    def from_settings(cls) -> ProlificProvider:
        return cls(settings.PROLIFIC_API_URL, settings.PROLIFIC_TOKEN, workspace=settings.PROLIFIC_WORKSPACE,
                   project=settings.PROLIFIC_PROJECT, external_url=settings.PROLIFIC_EXTERNAL_URL,
                   complete_url=settings.PROLIFIC_COMPLETE_URL, currency=settings.PROLIFIC_CURRENCY,
                   timeout=settings.PROLIFIC_TIMEOUT, vat=vat_rate(settings.PROLIFIC_VAT_REGION,
                                                                   settings.PROLIFIC_VAT_NUMBER,
                                                                   settings.PROLIFIC_VAT_RATE))

    # --- transport --------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, *, repeatable: bool = True,
              deadline: float | None = None) -> Any:
        """One API call. `repeatable`: doing it twice is harmless, so a lost answer is asked again; otherwise a
        lost answer raises LostAnswer for the caller to look the outcome up. `deadline` (time.monotonic()): past
        it nothing more is waited for, and ProviderBusy says so."""
        if not self.token:
            raise ProviderError("Prolific needs an API token: set PROLIFIC_TOKEN (Prolific: Settings, API tokens) "
                                "and PROLIFIC_API_URL if it is not https://api.prolific.com/api/v1/")
        url = path if path.startswith("http") else self.api_url + path
        for attempt in range(self.attempts):
            timeout = self.timeout if deadline is None else max(0.1, min(self.timeout, deadline - time.monotonic()))
            try:
                response = self.session.request(method, url, json=body, timeout=timeout, headers={
                    "Authorization": f"Token {self.token}", "Accept": "application/json"})
            except requests.RequestException as error:
                if not repeatable:
                    raise LostAnswer(f"Prolific {method} {path}: the answer was lost ({type(error).__name__}); it "
                                     f"may have been done") from error
                self._wait(attempt, None, deadline, f"{method} {path}")
                continue
            if response.status_code == 429:  # the one answer that says the call was not done
                self._wait(attempt, response.headers.get("Retry-After"), deadline, f"{method} {path}")
                continue
            if response.status_code >= 500:
                if not repeatable:
                    raise LostAnswer(f"Prolific {method} {path}: answered {response.status_code}, so it may have "
                                     f"been done")
                self._wait(attempt, response.headers.get("Retry-After"), deadline, f"{method} {path}")
                continue
            return self._read(method, path, response)
        raise ProviderError(f"Prolific {method} {path}: no answer after {self.attempts} attempts (busy or down); "
                            f"try again later")

    def _wait(self, attempt: int, retry_after: str | None, deadline: float | None, what: str) -> None:
        try:
            delay = float(retry_after) if retry_after is not None else self.backoff * 2 ** attempt
        except ValueError:
            delay = self.backoff * 2 ** attempt
        delay = min(max(delay, 0.0), 60)
        if deadline is not None and time.monotonic() + delay > deadline:
            raise ProviderBusy(f"Prolific {what}: busy (no answer within the time a page may wait)")
        time.sleep(delay)

    def _read(self, method: str, path: str, response: requests.Response) -> Any:
        try:
            # Amounts may hold fractions of a minor unit (fees): read them as Decimals, never floats.
            data = json.loads(response.content, parse_float=Decimal) if response.content else {}
        except ValueError:
            data = {"detail": response.text[:200]}
        if response.status_code == 401:
            raise ProviderError("Prolific refused the API token: check PROLIFIC_TOKEN")
        if response.status_code >= 400:
            error = data.get("error", data) if isinstance(data, dict) else {}
            detail = error.get("detail") or error.get("message") or error.get("title") or str(data)[:200]
            raise ProviderError(f"Prolific {method} {path}: {response.status_code} {detail}")
        return data

    def _pages(self, path: str) -> Iterable[dict]:
        found = self._call("GET", path)
        while True:
            yield from found.get("results", [])
            following = ((found.get("_links") or {}).get("next") or {}).get("href")
            if not following:
                return
            found = self._call("GET", following)

    # --- money ------------------------------------------------------------------------------

    def reward_fee(self, reward: Decimal, assignments_per_hit: int, masters: bool = False) -> Decimal:
        return _fee(money(reward))

    def bonus_fee(self, amount: Decimal) -> Decimal:
        return _fee(money(amount))

    def vat(self, fee: Decimal) -> Decimal:
        """As the fee: in minor units to two decimal places of one (rounded half up), kept exact in major units."""
        return (fee * 100 * self.vat_rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) / 100

    def cost_per_assignment(self, reward: Decimal, assignments_per_hit: int, masters: bool = False) -> Decimal:
        fee = _fee(money(reward))
        return money(reward) + fee + self.vat(fee)  # exact: the estimate rounds its total once

    def balance_vat_rate(self) -> Decimal | None:
        """The VAT share of the fees in the workspace balance Prolific reports (None while it holds no fees): what
        the settings' rate is checked against."""
        found = self._call("GET", f"workspaces/{self.workspace_id()}/balance/")
        breakdown = found.get("balance_breakdown") or {}
        fees, vat = Decimal(str(breakdown.get("fees") or 0)), Decimal(str(breakdown.get("vat") or 0))
        return (vat / fees).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP) if fees else None

    def available_balance(self) -> Decimal | None:
        found = self._call("GET", f"workspaces/{self.workspace_id()}/balance/")
        return money(Decimal(found["available_balance"]) / 100)

    def workspace_id(self) -> str:
        """The workspace everything is made in: PROLIFIC_WORKSPACE, or the account's only one. Prolific refuses
        participant groups (the block list, a screening test's passers) without it."""
        if not self.workspace:
            found = list(self._pages("workspaces/"))
            if len(found) != 1:
                named = ", ".join(f"{w['id']} ({w.get('title', '')})" for w in found) or "none"
                raise ProviderError(f"set PROLIFIC_WORKSPACE to the Prolific workspace to use: this account has "
                                    f"{len(found)} ({named}); participant groups and balances need one")
            self.workspace = found[0]["id"]
        return self.workspace

    # --- studies ----------------------------------------------------------------------------

    @staticmethod
    def minutes(batch: Batch) -> int:
        """The estimated completion time of one place: the HIT's sentences at PROLIFIC_SECONDS_PER_ITEM."""
        return max(1, int((Decimal(batch.items_per_hit * settings.PROLIFIC_SECONDS_PER_ITEM) / 60)
                          .to_integral_value(ROUND_CEILING)))

    def check(self, batch: Batch, hits: Sequence[Hit]) -> list[str]:
        problems = []
        minutes = self.minutes(batch)
        hourly = money(batch.reward * 60 / minutes)
        floor = FLOOR.get(self.currency, FLOOR["GBP"])
        if hourly < floor:
            needed = money(floor * minutes / 60 + Decimal("0.004"))
            problems.append(
                f"the reward {batch.reward} {self.currency} for about {minutes} minutes is {hourly} {self.currency} "
                f"an hour, under Prolific's floor of {floor} {self.currency} (it recommends "
                f"{RECOMMENDED[self.currency]}): raise the reward to at least {needed}")
        if not self.external_url:
            problems.append("set PROLIFIC_EXTERNAL_URL to this site's public address (participants open the "
                            "study there)")
        if not self.token:
            problems.append("set PROLIFIC_TOKEN (Prolific: Settings, API tokens)")
        try:
            study_filters(batch)
        except CrowdsetError as error:
            problems.append(str(error))
        return problems

    def study_url(self, path: str) -> str:
        query = urlencode({"PROLIFIC_PID": "{{%PROLIFIC_PID%}}", "STUDY_ID": "{{%STUDY_ID%}}",
                           "SESSION_ID": "{{%SESSION_ID%}}"}, safe="{}%")
        return f"{self.external_url}{path}?{query}"

    def describe_filters(self, requirements: dict[str, Any]) -> list[str]:
        rate, approvals = _approval_floor(requirements)
        found = [f"approval rate at least {rate}%", f"at least {approvals:,} approved submissions"]
        if settings.PROLIFIC_COUNTRIES:
            found.append(f"living in {', '.join(settings.PROLIFIC_COUNTRIES)}")
        if settings.PROLIFIC_LANGUAGE:
            found.append(f"fluent in {settings.PROLIFIC_LANGUAGE}")
        if requirements.get("masters"):
            found.append("Masters: an MTurk qualification, not applied on Prolific")
        if requirements.get("qualification"):
            found.append(f"passed the {requirements['qualification']} screening study")
        return found

    def filters(self, batch: Batch | None) -> list[dict]:
        """Who may take part: approval rate and count, country, language, and what extensions add
        (a screening test's participant group); the block list always."""
        choices = {f["filter_id"]: f.get("choices") or {} for f in self._call("GET", "filters/").get("results", [])}

        def ids(filter_id: str, labels: Sequence[str]) -> list[str]:
            wanted = {label.lower() for label in labels}
            return [key for key, label in choices.get(filter_id, {}).items() if label.lower() in wanted]

        rate, approvals = _approval_floor((batch.requirements or {}) if batch is not None else {})
        found = [{"filter_id": "approval_rate", "selected_range": {"lower": rate, "upper": 100}},
                 {"filter_id": "approval_numbers", "selected_range": {"lower": approvals}}]
        if settings.PROLIFIC_COUNTRIES:
            found.append({"filter_id": "current-country-of-residence",
                          "selected_values": ids("current-country-of-residence", settings.PROLIFIC_COUNTRIES)})
        if settings.PROLIFIC_LANGUAGE:
            found.append({"filter_id": "fluent-languages",
                          "selected_values": ids("fluent-languages", [settings.PROLIFIC_LANGUAGE])})
        found.append({"filter_id": "participant_group_blocklist", "selected_values": [self.block_group()]})
        return found + (study_filters(batch) if batch is not None else [])

    def study_create(self, *, key: str, name: str, description: str, path: str, places: int, minutes: int,
                     reward: Decimal, codes: list[dict], filters: list[dict], max_minutes: int) -> dict:
        """Make a study once: looked for by its internal name (our key) before it is made, and again after
        an answer was lost, so a retry never makes a second one."""
        existing = self._study_named(key)
        if existing:
            return existing
        body = {"name": name, "internal_name": key, "description": description,
                "external_study_url": self.study_url(path), "prolific_id_option": "url_parameters",
                "completion_codes": codes, "total_available_places": places, "estimated_completion_time": minutes,
                "maximum_allowed_time": max_minutes, "reward": int(money(reward) * 100),
                "device_compatibility": settings.PROLIFIC_DEVICES, "filters": filters,
                "submissions_config": {"max_submissions_per_participant": 1}}
        if self.project:
            body["project"] = self.project
        try:
            return self._call("POST", "studies/", body, repeatable=False)
        except LostAnswer:
            existing = self._study_named(key)  # made by the call whose answer was lost?
            if existing:
                return existing
            return self._call("POST", "studies/", body, repeatable=False)  # looked up: it was not

    def _study_named(self, key: str) -> dict | None:
        """The study with this internal name; several are reported, never chosen between."""
        found = [study for study in self._pages("studies/") if study.get("internal_name") == key]
        if len(found) > 1:
            named = ", ".join(f"{study['id']} ({study.get('status', '?')})" for study in found)
            raise ProviderError(f"Prolific has {len(found)} studies named {key!r} ({named}): one batch "
                                f"must have one study. Keep the one with participants, delete the other drafts at "
                                f"Prolific, then publish again")
        return found[0] if found else None

    def study_publish(self, study_id: str) -> str:
        study = self._call("GET", f"studies/{study_id}/")
        if study["status"] == "UNPUBLISHED":
            try:
                study = self._call("POST", f"studies/{study_id}/transition/", {"action": "PUBLISH"})
            except ProviderError:
                study = self._call("GET", f"studies/{study_id}/")  # published by an attempt whose answer was lost
                if study["status"] == "UNPUBLISHED":
                    raise
        return study["status"]

    def prepare(self, batch: Batch) -> None:
        state = dict(batch.provider_state or {})
        if not state.get("study_key"):
            # Kept before anything is made: the key finds the study again after a lost answer or a crash.
            state.update(study_key=f"crowdset-batch-{batch.pk}-{uuid.uuid4().hex[:12]}",
                         completion_code=secrets.token_hex(4).upper())
            Batch.objects.filter(pk=batch.pk).update(provider_state=state)
        if not state.get("study_id"):
            minutes = self.minutes(batch)
            # Participants see the task's own title and description, as MTurk's workers do; the batch's name is
            # the organizer's and stays in the internal name's key.
            listing = get_task_type(batch.task_type).listing(batch)
            # Prolific times a participant out no later than this site would: a place stays taken here as long as
            # it is taken there (see hits.prolific_views, which sets the claim's deadline from it).
            study = self.study_create(
                key=state["study_key"], name=listing["title"], path="/prolific/start/",
                description=listing["description"],
                places=batch.places(), minutes=minutes, reward=batch.reward,
                codes=[{"code": state["completion_code"], "code_type": "COMPLETED",
                        "actions": [{"action": "MANUALLY_REVIEW"}]}],
                filters=self.filters(batch), max_minutes=self.max_minutes(batch))
            state["study_id"] = study["id"]
            Batch.objects.filter(pk=batch.pk).update(provider_state=state)
        else:
            self.study_grow(state["study_id"], batch.places())
        self.study_publish(state["study_id"])
        batch.provider_state = state

    def max_minutes(self, batch: Batch) -> int:
        """The study's maximum allowed time: the batch's time for a HIT, and at least the estimated time."""
        return max(self.minutes(batch), batch.assignment_duration // 60)

    def study_grow(self, study_id: str, places: int) -> None:
        """More places for a study whose batch grew (a later workflow stage that gets items as the earlier
        one produces them); places only go up on Prolific, and asking for as many again changes nothing."""
        study = self._call("GET", f"studies/{study_id}/")
        if study["total_available_places"] < places:
            self._call("PATCH", f"studies/{study_id}/", {"total_available_places": places})

    def publish_hit(self, hit: Hit, items: Sequence[Item]) -> str:
        # Prolific knows places, not HITs: the claim engine on this site hands out the HITs.
        return f"{hit.batch.provider_state['study_id']}:{hit.index}"

    def find_hit(self, hit: Hit) -> str | None:
        study = (hit.batch.provider_state or {}).get("study_id")
        return f"{study}:{hit.index}" if study else None

    def expire_hit(self, hit: Hit) -> None:
        self.close_batch(hit.batch)

    def close_batch(self, batch: Batch) -> None:
        """STOP the batch's study in every status but a final one: a study awaiting review (its places ran out)
        or paused would otherwise open again when a participant returns a place. A draft never published has
        nothing to stop."""
        state = dict(batch.provider_state or {})
        if not state.get("study_id") or state.get("stopped"):
            return
        found = self._call("GET", f"studies/{state['study_id']}/")
        if found["status"] not in FINAL_STUDY and found["status"] != "UNPUBLISHED":
            self._call("POST", f"studies/{state['study_id']}/transition/", {"action": "STOP"})
        state["stopped"] = True
        Batch.objects.filter(pk=batch.pk).update(provider_state=state)
        batch.provider_state = state

    # --- participants -----------------------------------------------------------------------

    def submission(self, submission_id: str, *, deadline: float | None = None) -> dict | None:
        """A submission as Prolific has it, or None when Prolific has no such submission. The detail names the
        participant `participant` (the study's list says `participant_id`). `deadline`: see _call."""
        try:
            return self._call("GET", f"submissions/{submission_id}/", deadline=deadline)
        except ProviderBusy:
            raise
        except ProviderError as error:
            if " 404 " in str(error):
                return None
            raise

    def remote_assignments(self, batch: Batch) -> list[RemotePlace]:
        study = (batch.provider_state or {}).get("study_id")
        if not study:
            return []
        return [_remote_place(found) for found in self._pages(f"studies/{study}/submissions/")]

    def places_taken(self, batch: Batch) -> int | None:
        study = (batch.provider_state or {}).get("study_id")
        if not study:
            return None
        found = self._call("GET", f"studies/{study}/")
        return int(found["places_taken"]) if found.get("places_taken") is not None else None

    def assignment_status(self, assignment: Assignment) -> str | None:
        found = self.submission(assignment.provider_assignment_id)
        return STATUS.get(found["status"], ("claimed", True))[0] if found else None

    # --- review and money ---------------------------------------------------------------------

    def approve(self, assignment: Assignment, feedback: str = "") -> None:
        self._transition(assignment, {"action": "APPROVE"}, "approved")

    def reject(self, assignment: Assignment, feedback: str, category: str = "") -> None:
        if len(feedback.strip()) < MIN_REJECTION:
            raise ProviderError(f"Prolific needs a rejection message of at least {MIN_REJECTION} characters (this "
                                f"one has {len(feedback.strip())}): say what was wrong and how it was checked")
        if category not in CATEGORIES:
            raise ProviderError(f"Prolific needs a rejection category: one of {', '.join(CATEGORIES)}")
        self._transition(assignment, {"action": "REJECT", "message": feedback.strip(),
                                      "rejection_category": category}, "rejected")

    def _transition(self, assignment: Assignment, body: dict, wanted: str) -> None:
        submission = assignment.provider_assignment_id
        try:
            self._call("POST", f"submissions/{submission}/transition/", body)
        except ProviderError:
            status = self.assignment_status(assignment)
            if status == wanted:
                return  # done by an attempt whose answer was lost
            if status in ("approved", "rejected", "returned", "timed-out", "screened-out"):
                raise NotReviewable(f"Prolific has submission {submission} {status} already", status) from None
            raise

    def request_return(self, assignment: Assignment, reasons: Sequence[str]) -> None:
        self._call("POST", f"submissions/{assignment.provider_assignment_id}/request-return/",
                   {"request_return_reasons": list(reasons)})

    def send_bonus(self, payment: Payment) -> str:
        """Two steps: a bonus set (made again only after a lookup: a lost set is unpaid and stays so), kept in the
        ledger before it is paid; then the payment, which Prolific does again on every call: a lost answer to it
        raises LostAnswer(maybe_paid=True), and hits.services.bonuses looks the bonus up before anything more."""
        assert payment.assignment is not None
        batch = payment.assignment.hit.batch
        reference = payment.provider_reference
        if not reference:
            found = self._call("POST", "submissions/bonus-payments/", {
                "study_id": batch.provider_state["study_id"],
                "csv_bonuses": f"{payment.assignment.provider_assignment_id},{money(payment.amount)}"},
                repeatable=False)
            reference = found["id"]
            Payment.objects.filter(pk=payment.pk).update(provider_reference=reference)
            # The fee and its VAT as Prolific states them, fractions of a penny kept.
            if found.get("fees") is not None:
                Payment.objects.filter(fee_of=payment).update(amount=Decimal(str(found["fees"])) / 100)
            if found.get("vat") is not None:
                Payment.objects.filter(fee_of__fee_of=payment).update(amount=Decimal(str(found["vat"])) / 100)
            payment.provider_reference = reference
        try:
            self._call("POST", f"bulk-bonus-payments/{reference}/pay/", {}, repeatable=False)
        except LostAnswer as error:
            raise LostAnswer(str(error), maybe_paid=True) from error
        return reference

    def find_bonuses(self, assignment: Assignment) -> list[RemoteBonus]:
        """Prolific lists the amounts paid on a submission, not why: each is a bonus without a reason."""
        if not assignment.provider_assignment_id:
            return []
        found = self.submission(assignment.provider_assignment_id)
        if found is None:
            return []
        return [RemoteBonus(assignment.provider_assignment_id, found["participant"],
                            money(Decimal(amount) / 100), "", None)
                for amount in found.get("bonus_payments") or ()]

    def block_group(self) -> str:
        """The workspace's block-list group, made the first time it is needed."""
        return self._group_named(BLOCK_GROUP) or self.group_create(BLOCK_GROUP)

    def group_create(self, name: str) -> str:
        """A participant group of the workspace, made once: after a lost answer it is looked for by its name."""
        try:
            return self._call("POST", "participant-groups/", {"name": name, "workspace_id": self.workspace_id()},
                              repeatable=False)["id"]
        except LostAnswer:
            found = self._group_named(name)
            if found:
                return found
            return self._call("POST", "participant-groups/", {"name": name, "workspace_id": self.workspace_id()},
                              repeatable=False)["id"]

    def _group_named(self, name: str) -> str | None:
        query = urlencode({"workspace_id": self.workspace_id()})
        return next((group["id"] for group in self._pages(f"participant-groups/?{query}") if group["name"] == name),
                    None)

    def block(self, worker: Worker, reason: str) -> None:
        self._call("POST", f"participant-groups/{self.block_group()}/participants/",
                   {"participant_ids": [worker.external_id]})

    def revoke(self, worker: Worker, reason: str) -> None:
        # Prolific has no qualification to take away: the block list keeps them out of every later study.
        self.block(worker, reason)


def _approval_floor(requirements: dict[str, Any]) -> tuple[int, int]:
    """(approval rate, approved submissions) a participant needs: the batch's own, else the settings'."""
    return (int(requirements.get("min_approval_rate") or settings.PROLIFIC_MIN_APPROVAL_RATE),
            int(requirements.get("min_approved_hits") or settings.PROLIFIC_MIN_APPROVALS))
