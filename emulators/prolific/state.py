"""What the Prolific emulator holds, and Prolific's rules for it (see ../shared/docs/prolific-api.md).

One workspace with one project; studies with their status machine, places and pay floor; participants with
the attributes filters look at; submissions with their statuses and time-outs; approve / reject / return
rules; participant groups; two-step bonuses (paying a bonus set twice pays twice, as Prolific does); the
workspace balance with Prolific's fees. Amounts are minor units (pence), as on the wire.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal

STUDY_STATUSES = ("UNPUBLISHED", "PUBLISHING", "SCHEDULED", "ACTIVE", "PAUSED", "AWAITING REVIEW", "COMPLETED")
REJECTION_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
# A place is taken while its submission is in one of these. Returned, timed-out and screened-out submissions give
# it back, and so does a rejected one: Prolific opens a new place for it.
TAKING = ("RESERVED", "ACTIVE", "AWAITING REVIEW", "APPROVED", "PARTIALLY APPROVED", "PROCESSING")
FLOOR = {"GBP": 600, "USD": 800}  # minor units an hour
# Prolific's service fee on rewards and bonuses: a third, in minor units to two decimal places, rounded up
# (850 -> 283.34, as the reference shows); VAT on the fee by where the workspace is registered.
FEE_RATE = Decimal(1) / 3
VAT = {"uk": Decimal("0.20"), "eu": Decimal("0.20"), "eu-vat-number": Decimal(0), "none": Decimal(0)}
COUNTRIES = {"1": "United Kingdom", "2": "United States", "3": "Canada", "4": "Australia", "5": "Ireland",
             "6": "New Zealand", "7": "Germany", "8": "India"}
LANGUAGES = {"19": "English", "20": "German", "21": "French", "22": "Spanish", "23": "Hindi"}


class ApiError(Exception):
    """An answer in Prolific's error shape."""

    def __init__(self, status: int, title: str, detail: str, code: int | None = None, **extra):
        super().__init__(detail)
        self.status, self.title, self.detail, self.extra = status, title, detail, extra
        self.code = code or {400: 140100, 401: 140101, 403: 140103, 404: 140104, 409: 140109}.get(status, 140000)

    def body(self) -> dict:
        return {"error": {"status": self.status, "error_code": self.code, "title": self.title, "detail": self.detail,
                          "additional_information": self.extra.get("info", "")}}


def fee(amount: int) -> Decimal:
    return (Decimal(amount) * FEE_RATE).quantize(Decimal("0.01"), rounding=ROUND_CEILING)


def vat(fees: Decimal, rate: Decimal) -> Decimal:
    return (Decimal(fees) * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def whole(amount: Decimal | int) -> int:
    """A balance on the wire: whole minor units (what is left of a fraction stays in the account)."""
    return int(Decimal(amount).to_integral_value(rounding=ROUND_FLOOR))


def _id() -> str:
    return secrets.token_hex(12)  # Prolific's ids are 24 hex characters


@dataclass
class Participant:
    id: str
    approval_rate: int = 99
    approvals: int = 500
    country: str = "United Kingdom"
    languages: tuple[str, ...] = ("English",)


@dataclass
class Submission:
    id: str
    study_id: str
    participant_id: str
    started_at: datetime
    status: str = "ACTIVE"
    completed_at: datetime | None = None
    study_code: str = ""
    bonus_payments: list[int] = field(default_factory=list)
    # When the researcher asked for it back (a datetime), as Prolific reports it; None if never asked.
    return_requested: datetime | None = None
    return_reasons: list[str] = field(default_factory=list)

    def listed(self) -> dict:
        """As `GET studies/{id}/submissions/` lists it: short, the participant as `participant_id`."""
        return {"id": self.id, "participant_id": self.participant_id, "status": self.status,
                "started_at": self.started_at.isoformat(),
                "completed_at": self.completed_at.isoformat() if self.completed_at else None,
                "has_siblings": False, "study_code": self.study_code,
                "return_requested": self.return_requested.isoformat() if self.return_requested else None}

    def detail(self) -> dict:
        """As `GET submissions/{id}/` answers: the participant as `participant` (not `participant_id`)."""
        return {"id": self.id, "study_id": self.study_id, "participant": self.participant_id,
                "status": self.status, "started_at": self.started_at.isoformat(),
                "completed_at": self.completed_at.isoformat() if self.completed_at else None,
                "entered_code": self.study_code, "bonus_payments": list(self.bonus_payments),
                "return_requested": self.return_requested.isoformat() if self.return_requested else None,
                "parent_study_id": None}


@dataclass
class BonusSet:
    id: str
    study_id: str
    lines: list[tuple[str, int]]  # (submission id, minor units)
    paid: int = 0  # times paid: more than once is the caller's mistake, and Prolific pays anyway

    @property
    def amount(self) -> int:
        return sum(amount for _, amount in self.lines)


class Workspace:
    """The emulator's whole state. Every method is called with `lock` held (see server.py)."""

    def __init__(self, *, token: str, currency: str = "GBP", balance: int = 10_000_00, clock=None,
                 vat_region: str = "uk"):
        self.token = token
        self.currency = currency
        # Where the workspace is registered: "uk", "eu" (no VAT number), "eu-vat-number" or "none".
        self.vat_rate = VAT[vat_region]
        self.clock = clock or (lambda: datetime.now(UTC))
        self.lock = threading.RLock()
        self.workspace_id, self.project_id = _id(), _id()
        self.balance = Decimal(balance)  # minor units available to spend; fees leave fractions of a unit
        self.studies: dict[str, dict] = {}
        self.submissions: dict[str, Submission] = {}
        self.participants: dict[str, Participant] = {}
        self.groups: dict[str, dict] = {}
        self.bonuses: dict[str, BonusSet] = {}
        self.hook_secret = ""
        self.subscriptions: dict[str, dict] = {}
        self.outbox: list[tuple[str, dict]] = []  # (event type, payload) for the webhook sender

    # --- account ----------------------------------------------------------------------

    def me(self) -> dict:
        return {"id": "researcher", "email": "researcher@example.org", "currency_code": self.currency,
                "balance": whole(self.balance), "available_balance": whole(self.balance)}

    def workspace_balance(self, workspace_id: str) -> dict:
        """The money held, split as Prolific splits a top-up: the share for rewards, the fees on them and the VAT
        on the fees (by where the workspace is registered)."""
        self._workspace(workspace_id)
        reserved = sum((study["_reserved"] for study in self.studies.values()), Decimal(0))
        return {"currency_code": self.currency, "total_balance": whole(self.balance + reserved),
                "balance_breakdown": self._breakdown(self.balance + reserved),
                "available_balance": whole(self.balance), "available_balance_breakdown": self._breakdown(self.balance)}

    def _breakdown(self, amount: Decimal) -> dict:
        rewards = Decimal(amount) / (1 + FEE_RATE * (1 + self.vat_rate))
        fees = rewards * FEE_RATE
        return {"rewards": whole(rewards), "fees": whole(fees), "vat": whole(fees * self.vat_rate)}

    def place_cost(self, reward: int) -> Decimal:
        """A place's reward, its fee and the fee's VAT, in minor units."""
        charged = fee(reward)
        return reward + charged + vat(charged, self.vat_rate)

    def workspaces(self) -> list[dict]:
        return [{"id": self.workspace_id, "title": "Emulated workspace", "currency_code": self.currency}]

    def projects(self, workspace_id: str) -> list[dict]:
        self._workspace(workspace_id)
        return [{"id": self.project_id, "title": "Emulated project", "workspace": self.workspace_id}]

    def _workspace(self, workspace_id: str) -> None:
        if workspace_id != self.workspace_id:
            raise ApiError(404, "Not found", f"No workspace {workspace_id}.")

    def filters(self) -> list[dict]:
        return [{"filter_id": "approval_rate", "type": "range"}, {"filter_id": "approval_numbers", "type": "range"},
                {"filter_id": "current-country-of-residence", "type": "select", "choices": COUNTRIES},
                {"filter_id": "fluent-languages", "type": "select", "choices": LANGUAGES},
                {"filter_id": "first-language", "type": "select", "choices": LANGUAGES},
                {"filter_id": "participant_group_allowlist", "type": "select"},
                {"filter_id": "participant_group_blocklist", "type": "select"}]

    # --- studies ------------------------------------------------------------------------

    def study_create(self, data: dict) -> dict:
        missing = [name for name in ("name", "description", "external_study_url", "total_available_places",
                                     "estimated_completion_time", "reward", "completion_codes") if name not in data]
        if missing:
            raise ApiError(400, "Invalid request", f"Missing fields: {', '.join(missing)}.",
                           info={name: ["This field is required."] for name in missing})
        for name in ("total_available_places", "estimated_completion_time", "reward"):
            if not isinstance(data[name], int) or data[name] <= 0:
                raise ApiError(400, "Invalid request", f"{name} must be a positive whole number.")
        url = data["external_study_url"]
        if not all(part in url for part in ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")):
            raise ApiError(400, "Invalid request", "external_study_url must carry {{%PROLIFIC_PID%}}, "
                                                   "{{%STUDY_ID%}} and {{%SESSION_ID%}}.")
        hourly = data["reward"] * 60 / data["estimated_completion_time"]
        if hourly < FLOOR[self.currency]:
            raise ApiError(400, "Invalid request",
                           f"The reward per hour ({hourly / 100:.2f} {self.currency}) is below the minimum of "
                           f"{FLOOR[self.currency] / 100:.2f} {self.currency}.")
        codes = data["completion_codes"]
        if not codes or any("code" not in code or "code_type" not in code for code in codes):
            raise ApiError(400, "Invalid request", "completion_codes needs at least one {code, code_type}.")
        study = {"internal_name": "", "device_compatibility": [], "prolific_id_option": "url_parameters", **data,
                 "id": _id(), "status": "UNPUBLISHED", "project": data.get("project", self.project_id),
                 "maximum_allowed_time": data.get("maximum_allowed_time", data["estimated_completion_time"] * 3),
                 "filters": data.get("filters", []), "date_created": self.clock().isoformat(),
                 "submissions_config": {"max_submissions_per_participant": 1,
                                        **(data.get("submissions_config") or {})},
                 "_reserved": 0}
        self.studies[study["id"]] = study
        return self._study_wire(study)

    def study(self, study_id: str) -> dict:
        return self._study_wire(self._study(study_id))

    def _study(self, study_id: str) -> dict:
        study = self.studies.get(study_id)
        if study is None:
            raise ApiError(404, "Not found", f"No study {study_id}.")
        if study["status"] == "PUBLISHING":
            # Publishing takes a moment at Prolific: the transition answers PUBLISHING, what comes after sees it
            # ACTIVE.
            study["status"] = "ACTIVE"
        return study

    def _study_wire(self, study: dict) -> dict:
        self._time_out()
        places = study["total_available_places"]
        return {**{k: v for k, v in study.items() if not k.startswith("_")},
                "places_taken": self._taken(study), "number_of_submissions": sum(
                    1 for s in self.submissions.values() if s.study_id == study["id"]),
                "total_cost": self.place_cost(study["reward"]) * places,
                "published_at": study.get("_published_at"), "is_underpaying": False}

    def _taken(self, study: dict) -> int:
        return sum(1 for s in self.submissions.values() if s.study_id == study["id"] and s.status in TAKING)

    def studies_list(self, status: str | None = None) -> list[dict]:
        return [self._study_wire(s) for s in self.studies.values() if status in (None, s["status"])]

    def study_update(self, study_id: str, data: dict) -> dict:
        study = self._study(study_id)
        if study["status"] != "UNPUBLISHED":
            allowed = {"internal_name", "total_available_places"}
            if set(data) - allowed:
                raise ApiError(400, "Invalid request", f"After publishing only {', '.join(sorted(allowed))} can "
                                                       f"change.")
            places = data.get("total_available_places", study["total_available_places"])
            if places < study["total_available_places"]:
                raise ApiError(400, "Invalid request", "Places can only go up once a study is published.")
            # More places on a published study are paid for at once, and a study whose places had run out
            # takes participants again.
            more = self.place_cost(study["reward"]) * (places - study["total_available_places"])
            if more > self.balance:
                raise ApiError(400, "Insufficient funds", f"More places need {more} and the workspace holds "
                                                          f"{self.balance}. Top up first.")
            self.balance -= more
            study["_reserved"] = study.get("_reserved", 0) + more
            if more and study["status"] == "AWAITING REVIEW" and not study.get("_stopped"):
                study["status"] = "ACTIVE"
        study.update(data)
        return self._study_wire(study)

    def study_transition(self, study_id: str, action: str) -> dict:
        study = self._study(study_id)
        status = study["status"]
        if action == "PUBLISH":
            if status != "UNPUBLISHED":
                raise ApiError(400, "Invalid transition", f"A {status} study cannot be published.")
            cost = self.place_cost(study["reward"]) * study["total_available_places"]
            if cost > self.balance:
                raise ApiError(400, "Insufficient funds", f"Publishing needs {cost} and the workspace holds "
                                                          f"{self.balance}. Top up first.")
            self.balance -= cost
            study["_reserved"] = cost
            study["_published_at"] = self.clock().isoformat()
            study["status"] = "PUBLISHING"
        elif action == "PAUSE" and status == "ACTIVE":
            study["status"] = "PAUSED"
        elif action == "START" and status == "PAUSED":
            study["status"] = "ACTIVE"
        elif action == "STOP" and status in ("ACTIVE", "PAUSED", "PUBLISHING", "SCHEDULED", "AWAITING REVIEW"):
            # Stopped for good: a place given back later (a return, a rejection) does not open it again.
            study["_stopped"] = True
            study["status"] = "AWAITING REVIEW" if self._open_work(study) else "COMPLETED"
            self._release(study)
        elif action == "STOP" and status == "COMPLETED":
            pass  # the same transition again changes nothing
        else:
            raise ApiError(400, "Invalid transition", f"{action} is not possible for a {status} study.")
        self._event("study.status.change", {"resource_id": study_id, "status": study["status"]})
        return self._study_wire(study)

    def _open_work(self, study: dict) -> bool:
        return any(s.study_id == study["id"] and s.status in ("ACTIVE", "RESERVED", "AWAITING REVIEW")
                   for s in self.submissions.values())

    def _release(self, study: dict) -> None:
        """Money kept for places nobody took goes back to the balance when a study stops."""
        used = sum(1 for s in self.submissions.values() if s.study_id == study["id"] and s.status in TAKING)
        unit = self.place_cost(study["reward"])
        back = max(0, study["_reserved"] - used * unit)
        self.balance += back
        study["_reserved"] -= back

    # --- participants ------------------------------------------------------------------

    def participant_register(self, data: dict) -> dict:
        participant = Participant(id=data["participant_id"], approval_rate=int(data.get("approval_rate", 99)),
                                  approvals=int(data.get("approvals", 500)),
                                  country=data.get("country", "United Kingdom"),
                                  languages=tuple(data.get("languages", ("English",))))
        self.participants[participant.id] = participant
        return {"participant_id": participant.id}

    def participant_start(self, participant_id: str, study_id: str) -> dict:
        """A participant takes a place: a submission, and the study URL with its placeholders filled in."""
        participant = self.participants.get(participant_id)
        if participant is None:
            raise ApiError(404, "Not found", f"No participant {participant_id}.")
        study = self._study(study_id)
        self._time_out()
        if study["status"] != "ACTIVE":
            raise ApiError(409, "Not available", f"Study {study_id} is {study['status']}.")
        refusal = self._eligible(study, participant)
        if refusal:
            raise ApiError(403, "Not eligible", refusal)
        mine = [s for s in self.submissions.values() if s.study_id == study_id and s.participant_id == participant_id]
        limit = study["submissions_config"]["max_submissions_per_participant"]
        open_one = next((s for s in mine if s.status == "ACTIVE"), None)
        if open_one is None:
            if len(mine) >= limit:
                raise ApiError(409, "Already taken part", f"Participant {participant_id} took part in {study_id}.")
            taken = sum(1 for s in self.submissions.values() if s.study_id == study_id and s.status in TAKING)
            if taken >= study["total_available_places"]:
                raise ApiError(409, "Full", f"Study {study_id} has no place left.")
            open_one = Submission(id=_id(), study_id=study_id, participant_id=participant_id,
                                  started_at=self.clock())
            self.submissions[open_one.id] = open_one
            self._event("submission.status.change", self._status_event(open_one))
        url = (study["external_study_url"].replace("{{%PROLIFIC_PID%}}", participant_id)
               .replace("{{%STUDY_ID%}}", study_id).replace("{{%SESSION_ID%}}", open_one.id))
        return {"submission_id": open_one.id, "url": url}

    def _eligible(self, study: dict, participant: Participant) -> str | None:
        for rule in study["filters"]:
            kind = rule.get("filter_id")
            values = rule.get("selected_values") or []
            bounds = rule.get("selected_range") or {}
            if kind == "approval_rate" and not bounds.get("lower", 0) <= participant.approval_rate <= bounds.get(
                    "upper", 100):
                return f"approval rate {participant.approval_rate} is outside {bounds}"
            if kind == "approval_numbers" and participant.approvals < bounds.get("lower", 0):
                return f"{participant.approvals} approvals, fewer than {bounds['lower']}"
            if kind == "current-country-of-residence" and participant.country not in [COUNTRIES.get(v) for v in
                                                                                        values]:
                return f"lives in {participant.country}"
            if kind in ("fluent-languages", "first-language") and not set(participant.languages) & {
                    LANGUAGES.get(v) for v in values}:
                return f"speaks {', '.join(participant.languages)}"
            if kind == "participant_group_allowlist" and not any(
                    participant.id in self.groups.get(v, {}).get("members", ()) for v in values):
                return "not in the allowed participant group"
            if kind == "participant_group_blocklist" and any(
                    participant.id in self.groups.get(v, {}).get("members", ()) for v in values):
                return "in a blocked participant group"
        return None

    def participant_complete(self, participant_id: str, code: str) -> dict:
        """The participant lands on the completion URL with a code: the study's code decides what happens."""
        self._time_out()
        active = [s for s in self.submissions.values() if s.participant_id == participant_id and s.status == "ACTIVE"]
        for submission in active:
            study = self.studies[submission.study_id]
            match = next((c for c in study["completion_codes"] if c["code"] == code), None)
            if match is None:
                continue
            submission.study_code, submission.completed_at = code, self.clock()
            submission.status = "AWAITING REVIEW"
            for action in match.get("actions") or [{"action": "MANUALLY_REVIEW"}]:
                if action["action"] == "AUTOMATICALLY_APPROVE":
                    self._approve(submission)
                elif action["action"] == "ADD_TO_PARTICIPANT_GROUP":
                    self._group(action["participant_group"])["members"].add(participant_id)
            self._event("submission.status.change", self._status_event(submission))
            self._fill_up(study)
            return {"submission_id": submission.id, "status": submission.status}
        raise ApiError(400, "Invalid code", f"No active submission of {participant_id} takes the code {code!r}.")

    def participant_return(self, participant_id: str, study_id: str) -> dict:
        """The participant returns their place: while working ("return submission"), or after submitting while
        it awaits review ("return and cancel reward" on their Submissions page). Either way it becomes RETURNED,
        nothing is paid, and the place goes back to the study."""
        submission = next((s for s in self.submissions.values() if s.participant_id == participant_id
                           and s.study_id == study_id and s.status in ("ACTIVE", "AWAITING REVIEW")), None)
        if submission is None:
            raise ApiError(404, "Not found", f"No active or awaiting-review submission of {participant_id} in "
                                             f"{study_id}.")
        submission.status = "RETURNED"
        self._event("submission.status.change", self._status_event(submission))
        self._place_freed(self.studies[study_id])
        return submission.detail()

    def participant_screen_out(self, participant_id: str, study_id: str) -> dict:
        """The study screened the participant out (they did not fit it): SCREENED OUT, and the place goes back."""
        submission = next((s for s in self.submissions.values() if s.participant_id == participant_id
                           and s.study_id == study_id and s.status == "ACTIVE"), None)
        if submission is None:
            raise ApiError(404, "Not found", f"No active submission of {participant_id} in {study_id}.")
        submission.status = "SCREENED OUT"
        self._event("submission.status.change", self._status_event(submission))
        self._place_freed(self.studies[study_id])
        return submission.detail()

    def _fill_up(self, study: dict) -> None:
        if study["status"] == "ACTIVE" and self._taken(study) >= study["total_available_places"]:
            study["status"] = "AWAITING REVIEW"
            self._event("study.status.change", {"resource_id": study["id"], "status": study["status"]})

    def _place_freed(self, study: dict) -> None:
        """A place came back (returned, timed out, screened out, rejected): a study whose places had run out takes
        participants again, unless it was stopped."""
        if (study["status"] == "AWAITING REVIEW" and not study.get("_stopped")
                and self._taken(study) < study["total_available_places"]):
            study["status"] = "ACTIVE"
            self._event("study.status.change", {"resource_id": study["id"], "status": study["status"]})

    def _time_out(self) -> None:
        now = self.clock()
        for submission in self.submissions.values():
            if submission.status != "ACTIVE":
                continue
            study = self.studies[submission.study_id]
            if now > submission.started_at + timedelta(minutes=study["maximum_allowed_time"]):
                submission.status = "TIMED-OUT"
                self._event("submission.status.change", self._status_event(submission))
                self._place_freed(study)

    # --- submissions ---------------------------------------------------------------------

    def submission(self, submission_id: str) -> dict:
        self._time_out()
        return self._submission(submission_id).detail()

    def _submission(self, submission_id: str) -> Submission:
        submission = self.submissions.get(submission_id)
        if submission is None:
            raise ApiError(404, "Not found", f"No submission {submission_id}.")
        return submission

    def study_submissions(self, study_id: str) -> list[dict]:
        self._study(study_id)
        self._time_out()
        return [s.listed() for s in self.submissions.values() if s.study_id == study_id]

    def submission_counts(self, study_id: str) -> dict:
        counts: dict[str, int] = {}
        for submission in self.study_submissions(study_id):
            counts[submission["status"]] = counts.get(submission["status"], 0) + 1
        return counts

    def submission_transition(self, submission_id: str, data: dict) -> dict:
        submission = self._submission(submission_id)
        action = data.get("action")
        if action == "APPROVE":
            if submission.status == "APPROVED":
                return submission.detail()  # the same transition again is harmless
            if submission.status != "AWAITING REVIEW":
                raise ApiError(400, "Invalid transition", f"A {submission.status} submission cannot be approved.")
            self._approve(submission)
        elif action == "REJECT":
            message, category = str(data.get("message", "")), data.get("rejection_category")
            if len(message) < 100:
                raise ApiError(400, "Invalid request", f"A rejection message needs at least 100 characters "
                                                       f"({len(message)} given).")
            if category not in REJECTION_CATEGORIES:
                raise ApiError(400, "Invalid request", f"rejection_category must be one of "
                                                       f"{', '.join(REJECTION_CATEGORIES)}.")
            if submission.status == "REJECTED":
                return submission.detail()
            if submission.status != "AWAITING REVIEW":
                raise ApiError(400, "Invalid transition", f"A {submission.status} submission cannot be rejected.")
            submission.status = "REJECTED"
            self._place_freed(self.studies[submission.study_id])  # the reward stays set aside for the new place
        else:
            raise ApiError(400, "Invalid request", "action must be APPROVE or REJECT.")
        self._event("submission.status.change", self._status_event(submission))
        return submission.detail()

    def _approve(self, submission: Submission) -> None:
        # The reward, its fee and the fee's VAT were set aside when the study was published.
        submission.status = "APPROVED"
        study = self.studies[submission.study_id]
        study["_reserved"] -= self.place_cost(study["reward"])

    def bulk_approve(self, data: dict) -> dict:
        if "submission_ids" in data:
            chosen = [self._submission(pk) for pk in data["submission_ids"]]
        else:
            study = self._study(data.get("study_id", ""))
            wanted = set(data.get("participant_ids", []))
            chosen = [s for s in self.submissions.values() if s.study_id == study["id"] and s.participant_id in wanted]
        for submission in chosen:
            if submission.status == "AWAITING REVIEW":
                self._approve(submission)
                self._event("submission.status.change", self._status_event(submission))
        return {"approved": len(chosen)}

    def request_return(self, submission_id: str, data: dict) -> dict:
        submission = self._submission(submission_id)
        reasons = data.get("request_return_reasons") or []
        if not reasons:
            raise ApiError(400, "Invalid request", "request_return_reasons needs at least one reason.")
        if submission.status not in ("ACTIVE", "AWAITING REVIEW"):
            raise ApiError(400, "Invalid transition", f"A {submission.status} submission cannot be returned.")
        submission.return_requested, submission.return_reasons = self.clock(), list(reasons)
        # Simulated participants do as asked: the place goes back and nothing is paid.
        submission.status = "RETURNED"
        self._event("submission.status.change", self._status_event(submission))
        self._place_freed(self.studies[submission.study_id])
        return submission.detail()

    # --- bonuses -------------------------------------------------------------------------

    def bonus_create(self, data: dict) -> dict:
        study = self._study(data.get("study_id", ""))
        lines = []
        for number, line in enumerate(str(data.get("csv_bonuses", "")).strip().splitlines(), 1):
            who, _, amount = line.partition(",")
            who = who.strip()
            submission = self.submissions.get(who) if who in self.submissions else next(
                (s for s in self.submissions.values() if s.participant_id == who and s.study_id == study["id"]), None)
            if submission is None or submission.study_id != study["id"]:
                raise ApiError(400, "Invalid request", f"Line {number}: {who} did not take part in study "
                                                       f"{study['id']}.")
            try:
                minor = int((Decimal(amount.strip()) * 100).to_integral_value(ROUND_HALF_UP))
            except ArithmeticError:
                raise ApiError(400, "Invalid request", f"Line {number}: {amount.strip()!r} is not an amount.") \
                    from None
            if minor <= 0:
                raise ApiError(400, "Invalid request", f"Line {number}: a bonus must be more than 0.")
            lines.append((submission.id, minor))
        if not lines:
            raise ApiError(400, "Invalid request", "csv_bonuses is empty.")
        bonus = BonusSet(id=_id(), study_id=study["id"], lines=lines)
        self.bonuses[bonus.id] = bonus
        fees = sum(fee(amount) for _, amount in lines)
        charged = sum(vat(fee(amount), self.vat_rate) for _, amount in lines)
        return {"id": bonus.id, "study": study["id"], "amount": bonus.amount, "fees": fees, "vat": charged,
                "total_amount": bonus.amount + fees + charged}

    def bonus_pay(self, bonus_id: str) -> dict:
        bonus = self.bonuses.get(bonus_id)
        if bonus is None:
            raise ApiError(404, "Not found", f"No bulk bonus payment {bonus_id}.")
        total = sum(self.place_cost(amount) for _, amount in bonus.lines)
        if total > self.balance:
            raise ApiError(400, "Insufficient funds", f"Paying needs {total} and the workspace holds {self.balance}.")
        # Not idempotent, as at Prolific: a second call pays again.
        self.balance -= total
        bonus.paid += 1
        for submission_id, amount in bonus.lines:
            self.submissions[submission_id].bonus_payments.append(amount)
        return {"id": bonus.id, "status": "PAID"}

    # --- participant groups ----------------------------------------------------------------

    def group_create(self, data: dict) -> dict:
        if not data.get("name"):
            raise ApiError(400, "Invalid request", "A participant group needs a name.",
                           info={"name": ["This field is required."]})
        if not data.get("workspace_id") and not data.get("organisation_id"):
            raise ApiError(400, "Invalid request", "Either workspace_id or organisation_id is required.",
                           info={"workspace_id": ["Either workspace_id or organisation_id is required."]})
        if data.get("workspace_id"):
            self._workspace(data["workspace_id"])
        group = {"id": _id(), "name": data["name"], "workspace_id": data.get("workspace_id"),
                 "organisation_id": data.get("organisation_id"), "members": set()}
        self.groups[group["id"]] = group
        return self._group_wire(group)

    def groups_list(self, workspace_id: str | None = None) -> list[dict]:
        return [self._group_wire(group) for group in self.groups.values()
                if workspace_id is None or group["workspace_id"] == workspace_id]

    def _group(self, group_id: str) -> dict:
        group = self.groups.get(group_id)
        if group is None:
            raise ApiError(404, "Not found", f"No participant group {group_id}.")
        return group

    def _group_wire(self, group: dict) -> dict:
        return {"id": group["id"], "name": group["name"], "workspace_id": group["workspace_id"],
                "organisation_id": group["organisation_id"], "description": "",
                "participant_count": len(group["members"])}

    def group_members(self, group_id: str) -> list[dict]:
        return [{"participant_id": member} for member in sorted(self._group(group_id)["members"])]

    def group_add(self, group_id: str, data: dict) -> list[dict]:
        self._group(group_id)["members"].update(data.get("participant_ids", []))
        return self.group_members(group_id)

    def group_remove(self, group_id: str, data: dict) -> list[dict]:
        self._group(group_id)["members"].difference_update(data.get("participant_ids", []))
        return self.group_members(group_id)

    # --- webhooks ------------------------------------------------------------------------

    def hook_secret_create(self, data: dict) -> dict:
        self._workspace(data.get("workspace_id", ""))
        self.hook_secret = secrets.token_urlsafe(32)
        return {"id": _id(), "value": self.hook_secret, "workspace_id": self.workspace_id}

    def subscription_create(self, data: dict) -> tuple[dict, str]:
        self._workspace(data.get("workspace_id", ""))
        if data.get("event_type") not in ("submission.status.change", "study.status.change"):
            raise ApiError(400, "Invalid request", f"Unknown event_type {data.get('event_type')!r}.")
        confirm = secrets.token_hex(16)
        subscription = {"id": _id(), "event_type": data["event_type"], "target_url": data.get("target_url", ""),
                        "is_enabled": False, "_confirm": confirm}
        self.subscriptions[subscription["id"]] = subscription
        return {k: v for k, v in subscription.items() if not k.startswith("_")}, confirm

    def subscription_confirm(self, subscription_id: str, data: dict) -> dict:
        subscription = self.subscriptions.get(subscription_id)
        if subscription is None:
            raise ApiError(404, "Not found", f"No subscription {subscription_id}.")
        if data.get("secret") != subscription["_confirm"]:
            raise ApiError(400, "Invalid request", "The X-Hook-Secret value does not match.")
        subscription["is_enabled"] = True
        return {k: v for k, v in subscription.items() if not k.startswith("_")}

    def _status_event(self, submission: Submission) -> dict:
        # As Prolific sends it: the SUBMISSION id as resource_id and no study id.
        return {"resource_id": submission.id, "participant_id": submission.participant_id,
                "status": submission.status}

    def _event(self, event_type: str, payload: dict) -> None:
        if any(s["is_enabled"] and s["event_type"] == event_type for s in self.subscriptions.values()):
            self.outbox.append((event_type, {**payload, "event_type": event_type}))
