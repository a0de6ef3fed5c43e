"""Amazon Mechanical Turk through boto3.

MTurk stopped taking new requesters on 2026-07-30 and closes on 2026-09-30;
this provider serves existing accounts, archives and MTurk-compatible
endpoints. Tests and the demo run it against `emulators.mturk`, which
speaks the same JSON wire protocol, so boto3 runs unpatched.

Idempotency comes from random keys stored with our rows before a call (a HIT's
request key, a payment's key), never from ids a database reset would reuse:
a retry (botocore retries throttling, 5xx and dropped connections itself)
cannot make a second HIT or pay twice, and MTurk's answer to a reused token
is resolved by looking the object up, not by guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from defusedxml import ElementTree
from django.conf import settings

from hits.providers.base import (
    DuplicateRequest,
    NotReviewable,
    Provider,
    ProviderError,
    RemoteBonus,
    RemoteHit,
    Submission,
    money,
)
from hits.task_types import get_task_type

if TYPE_CHECKING:
    from hits.models import Assignment, Batch, Hit, Item, Payment, Worker

ENDPOINTS = {
    True: "https://mturk-requester-sandbox.us-east-1.amazonaws.com",
    False: "https://mturk-requester.us-east-1.amazonaws.com",
}
LOCALE = "00000000000000000071"
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
MASTERS = {True: "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6", False: "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"}
QUESTION_LIMIT = 65_535
BLOCK_QUALIFICATION = "crowdset: kept from this requester's work"
_ANSWERS_NS = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd}"
_STATUS = {"Submitted": "submitted", "Approved": "approved", "Rejected": "rejected"}
_HIT_STATUS = {"Assignable": "open", "Unassignable": "full", "Reviewable": "review", "Reviewing": "review",
               "Disposed": "disposed"}
ANNOTATION = "crowdset "


def parse_answer_xml(xml: str) -> dict[str, str | None]:
    """QuestionFormAnswers XML → {QuestionIdentifier: FreeText or SelectionIdentifier}."""
    root = ElementTree.fromstring(xml)
    answers = {}
    for answer in root.iter(f"{_ANSWERS_NS}Answer"):
        identifier = answer.findtext(f"{_ANSWERS_NS}QuestionIdentifier")
        value = answer.findtext(f"{_ANSWERS_NS}FreeText")
        if value is None:
            value = answer.findtext(f"{_ANSWERS_NS}SelectionIdentifier")
        answers[identifier] = value
    return answers


def _when(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(value), tz=UTC)


def _fee(amount: Decimal, rate: Decimal) -> Decimal:
    return max(Decimal("0.01"), money(amount * rate))


class MTurkProvider(Provider):
    name = "mturk"
    pulls_submissions = True

    def __init__(self, client: Any, *, question: str = "html", external_url: str = "", sandbox: bool = True):
        self.client = client
        self.question = question
        self.external_url = external_url
        self.sandbox = sandbox
        self._block_type: str | None = None

    @classmethod
    def from_settings(cls) -> MTurkProvider:
        endpoint = settings.MTURK_ENDPOINT_URL or ENDPOINTS[settings.MTURK_SANDBOX]
        client = boto3.client("mturk", region_name="us-east-1", endpoint_url=endpoint,
                              config=Config(retries={"mode": "adaptive", "max_attempts": 10},
                                            read_timeout=settings.MTURK_TIMEOUT))
        return cls(client, question=settings.MTURK_QUESTION, external_url=settings.MTURK_EXTERNAL_URL,
                   sandbox=settings.MTURK_SANDBOX)

    # --- money -------------------------------------------------------------------------

    def reward_fee(self, reward: Decimal, assignments_per_hit: int, masters: bool = False) -> Decimal:
        rate = Decimal("0.20") + (Decimal("0.20") if assignments_per_hit >= 10 else 0) + (
            Decimal("0.05") if masters else 0)
        return _fee(money(reward), rate)

    def bonus_fee(self, amount: Decimal) -> Decimal:
        return _fee(money(amount), Decimal("0.20"))

    def available_balance(self) -> Decimal:
        return Decimal(self._call("get_account_balance")["AvailableBalance"])

    # --- publishing --------------------------------------------------------------------------

    def describe_filters(self, requirements: dict[str, Any]) -> list[str]:
        found = [f"workers in {', '.join(requirements.get('locales', settings.MTURK_LOCALES))}",
                 f"approval rate over {int(requirements.get('min_approval_rate', settings.MTURK_MIN_APPROVAL_RATE))}%"]
        if requirements.get("min_approved_hits"):
            found.append(f"at least {int(requirements['min_approved_hits']):,} approved HITs")
        if requirements.get("masters"):
            found.append("Masters only (MTurk adds 5% to its fee)")
        if requirements.get("qualification"):
            found.append(f"passed the {requirements['qualification']} test")
        return found

    def qualification_requirements(self, batch: Batch) -> list[dict[str, Any]]:
        requirements = batch.requirements
        found: list[dict[str, Any]] = [
            {"QualificationTypeId": LOCALE, "Comparator": "In",
             "LocaleValues": [{"Country": country} for country in requirements.get("locales", settings.MTURK_LOCALES)],
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": PERCENT_APPROVED, "Comparator": "GreaterThan",
             "IntegerValues": [int(requirements.get("min_approval_rate", settings.MTURK_MIN_APPROVAL_RATE))],
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
            # Workers whose qualification was revoked hold this one; it never comes back with a retaken test.
            {"QualificationTypeId": self.block_type(), "Comparator": "DoesNotExist",
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
        ]
        if requirements.get("min_approved_hits"):
            found.append({"QualificationTypeId": NUMBER_APPROVED, "Comparator": "GreaterThanOrEqualTo",
                          "IntegerValues": [int(requirements["min_approved_hits"])],
                          "ActionsGuarded": "DiscoverPreviewAndAccept"})
        if requirements.get("masters"):
            found.append({"QualificationTypeId": MASTERS[self.sandbox], "Comparator": "Exists",
                          "ActionsGuarded": "DiscoverPreviewAndAccept"})
        if requirements.get("qualification_type_id"):
            found.append({"QualificationTypeId": requirements["qualification_type_id"],
                          "Comparator": "GreaterThanOrEqualTo",
                          "IntegerValues": [int(requirements.get("min_score", 80))], "ActionsGuarded": "Accept"})
        return found

    def block_type(self) -> str:
        """The block qualification of this account, found by name or made once."""
        if self._block_type is None:
            self._block_type = self.qualification_type(
                name=BLOCK_QUALIFICATION, description="Workers kept from this requester's work (a revoked "
                                                      "qualification); set by crowdset.")
        return self._block_type

    def qualification_type(self, *, name: str, description: str, **options: Any) -> str:
        """Find a QualificationType of this account by its name, or make it: names are unique per account,
        and a database reset must not end in 'already exists'."""
        found = self._find_qualification_type(name)
        if found:
            return found
        try:
            response = self.client.create_qualification_type(Name=name, Description=description,
                                                             QualificationTypeStatus="Active", **options)
        except ClientError as error:
            found = self._find_qualification_type(name)
            if found:
                return found
            raise ProviderError(f"MTurk CreateQualificationType {name!r}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error("CreateQualificationType", error) from error
        return response["QualificationType"]["QualificationTypeId"]

    def _find_qualification_type(self, name: str) -> str | None:
        for found in self._pages("list_qualification_types", "QualificationTypes", Query=name,
                                 MustBeRequestable=False, MustBeOwnedByCaller=True):
            if found["Name"] == name:
                return found["QualificationTypeId"]
        return None

    def prepare(self, batch: Batch) -> None:
        if batch.provider_state.get("hit_type_id"):
            return
        listing = get_task_type(batch.task_type).listing(batch)
        response = self._call(
            "create_hit_type", AssignmentDurationInSeconds=batch.assignment_duration, Reward=str(money(batch.reward)),
            Title=listing["title"][:128], Description=listing["description"][:2000],
            Keywords=listing["keywords"][:1000],
            AutoApprovalDelayInSeconds=batch.auto_approval_delay,
            QualificationRequirements=self.qualification_requirements(batch),
        )
        batch.provider_state = {**batch.provider_state, "hit_type_id": response["HITTypeId"]}
        batch.save(update_fields=["provider_state"])

    def question_xml(self, hit: Hit, items: Sequence[Item]) -> str:
        if self.question == "external":
            url = escape(f"{self.external_url.rstrip('/')}/mturk/hits/{hit.pk}/")
            return ('<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                    f'2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}</ExternalURL>'
                    '<FrameHeight>0</FrameHeight></ExternalQuestion>')
        html = get_task_type(hit.batch.task_type).html_question(hit, items)
        return ('<HTMLQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                f'2011-11-11/HTMLQuestion.xsd"><HTMLContent><![CDATA[{html}]]></HTMLContent>'
                '<FrameHeight>0</FrameHeight></HTMLQuestion>')

    def check(self, batch: Batch, hits: Sequence[Hit]) -> list[str]:
        """Every HIT's question against MTurk's 65,535-byte limit, and a batch MTurk cannot show as it is meant,
        before anything is published."""
        why = get_task_type(batch.task_type).per_worker(batch)
        if why:
            # Both MTurk questions are one page for every worker of the HIT: the HTMLQuestion is uploaded with the
            # HIT, and the ExternalQuestion's preview is shown before MTurk says who the worker is.
            return [f"MTurk shows every worker of a HIT the same page, and {why}: run this batch in-house or on "
                    f"Prolific"]
        problems = []
        for hit in hits:
            size = len(self.question_xml(hit, hit.ordered_items()).encode("utf-8"))
            if size > QUESTION_LIMIT:
                problems.append(f"HIT {hit.index + 1}: its question is {size:,} bytes, over MTurk's "
                                f"{QUESTION_LIMIT:,}")
        if problems:
            problems.append(f"make a new batch with fewer items per HIT (now {batch.items_per_hit}), or publish "
                            f"with MTURK_QUESTION=external, whose question is a link to this site")
        return problems

    def publish_hit(self, hit: Hit, items: Sequence[Item]) -> str:
        batch = hit.batch
        try:
            response = self.client.create_hit_with_hit_type(
                HITTypeId=batch.provider_state["hit_type_id"], MaxAssignments=hit.place_count,
                LifetimeInSeconds=batch.lifetime, Question=self.question_xml(hit, items),
                RequesterAnnotation=f"{ANNOTATION}{hit.request_key.hex}", UniqueRequestToken=hit.request_key.hex)
        except ClientError as error:
            if _turk_code(error) == "AWS.MechanicalTurk.HitAlreadyExists":
                found = self.find_hit(hit)
                if found:
                    return found
            raise ProviderError(f"MTurk CreateHITWithHITType, HIT {hit.index + 1} of batch {batch.pk}: "
                                f"{_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error("CreateHITWithHITType", error) from error
        return response["HIT"]["HITId"]

    def find_hit(self, hit: Hit) -> str | None:
        mark = f"{ANNOTATION}{hit.request_key.hex}"
        return next((found["HITId"] for found in self._pages("list_hits", "HITs")
                     if found.get("RequesterAnnotation") == mark), None)

    def expire_hit(self, hit: Hit) -> None:
        if hit.provider_hit_id:
            # A time in the past expires the HIT at once.
            self._call("update_expiration_for_hit", HITId=hit.provider_hit_id,
                       ExpireAt=datetime(1970, 1, 1, tzinfo=UTC))

    # --- results -------------------------------------------------------------------------------

    def fetch_submissions(self, hit: Hit) -> Iterator[Submission]:
        for assignment in self._pages("list_assignments_for_hit", "Assignments", HITId=hit.provider_hit_id,
                                      AssignmentStatuses=["Submitted", "Approved", "Rejected"]):
            try:
                answers, unreadable = parse_answer_xml(assignment["Answer"]), ""
            except ElementTree.ParseError as error:
                # One worker's bad bytes must not stop the sync of everyone else's work.
                answers, unreadable = {}, f"{error}: {assignment['Answer'][:2000]}"
            yield Submission(hit.provider_hit_id, assignment["AssignmentId"], assignment["WorkerId"], answers,
                             _when(assignment["SubmitTime"]) or datetime.now(tz=UTC),
                             _STATUS[assignment["AssignmentStatus"]], unreadable)

    def hit_state(self, hit: Hit) -> RemoteHit | None:
        try:
            found = self.client.get_hit(HITId=hit.provider_hit_id)["HIT"]
        except ClientError as error:
            if _turk_code(error) == "AWS.MechanicalTurk.HITDoesNotExist":
                return RemoteHit(hit.provider_hit_id, hit.request_key.hex, "disposed", None, 0)
            raise ProviderError(f"MTurk GetHIT {hit.provider_hit_id}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error("GetHIT", error) from error
        return self._remote(found)

    def _remote(self, found: dict[str, Any]) -> RemoteHit:
        annotation = found.get("RequesterAnnotation") or ""
        return RemoteHit(found["HITId"], annotation[len(ANNOTATION):] if annotation.startswith(ANNOTATION) else "",
                         _HIT_STATUS.get(found["HITStatus"], found["HITStatus"]), _when(found.get("Expiration")),
                         int(found.get("NumberOfAssignmentsPending", 0)))

    def dispose_hit(self, hit: Hit) -> None:
        try:
            self.client.delete_hit(HITId=hit.provider_hit_id)
        except ClientError as error:
            if _turk_code(error) != "AWS.MechanicalTurk.HITDoesNotExist":
                raise ProviderError(f"MTurk DeleteHIT {hit.provider_hit_id}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error("DeleteHIT", error) from error

    def list_hits(self, batch: Batch) -> Iterable[RemoteHit]:
        type_id = batch.provider_state.get("hit_type_id")
        return [self._remote(found) for found in self._pages("list_hits", "HITs")
                if type_id and found.get("HITTypeId") == type_id]

    def assignment_status(self, assignment: Assignment) -> str | None:
        found = self._call("get_assignment", AssignmentId=assignment.provider_assignment_id)["Assignment"]
        return _STATUS.get(found["AssignmentStatus"])

    # --- review and money --------------------------------------------------------------------------

    def approve(self, assignment: Assignment, feedback: str = "") -> None:
        options = {"AssignmentId": assignment.provider_assignment_id}
        if feedback:
            options["RequesterFeedback"] = feedback[:1024]
        self._review("approve_assignment", assignment, options)

    def reject(self, assignment: Assignment, feedback: str, category: str = "") -> None:
        self._review("reject_assignment", assignment, {"AssignmentId": assignment.provider_assignment_id,
                                                       "RequesterFeedback": feedback[:1024]})

    def _review(self, operation: str, assignment: Assignment, options: dict[str, Any]) -> None:
        try:
            getattr(self.client, operation)(**options)
        except ClientError as error:
            if _turk_code(error) == "AWS.MechanicalTurk.InvalidAssignmentState":
                raise NotReviewable(f"MTurk {operation}: {_describe(error)}",
                                    self.assignment_status(assignment)) from error
            raise ProviderError(f"MTurk {operation}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error(operation, error) from error

    def send_bonus(self, payment: Payment) -> str:
        assignment = payment.assignment
        try:
            self.client.send_bonus(WorkerId=payment.worker.external_id, BonusAmount=str(money(payment.amount)),
                                   AssignmentId=assignment.provider_assignment_id, Reason=payment.reason,
                                   UniqueRequestToken=payment.key.hex)
        except ClientError as error:
            code, message = _turk_code(error), error.response.get("Error", {}).get("Message", "")
            if code == "AWS.MechanicalTurk.DuplicateRequest" or "UniqueRequestToken" in message:
                raise DuplicateRequest(f"MTurk SendBonus: {_describe(error)}") from error
            raise ProviderError(f"MTurk SendBonus to {payment.worker.external_id}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error("SendBonus", error) from error
        return ""

    def find_bonuses(self, assignment: Assignment) -> list[RemoteBonus]:
        return [RemoteBonus(found["AssignmentId"], found["WorkerId"], Decimal(found["BonusAmount"]),
                            found.get("Reason", ""), _when(found.get("GrantTime")))
                for found in self._pages("list_bonus_payments", "BonusPayments",
                                         AssignmentId=assignment.provider_assignment_id)]

    def block(self, worker: Worker, reason: str) -> None:
        self._call("create_worker_block", WorkerId=worker.external_id, Reason=reason)

    def revoke(self, worker: Worker, reason: str) -> None:
        self._call("associate_qualification_with_worker", QualificationTypeId=self.block_type(),
                   WorkerId=worker.external_id, IntegerValue=1, SendNotification=False)

    # --- calls --------------------------------------------------------------------------------------

    def _pages(self, operation: str, key: str, **options: Any) -> Iterator[dict[str, Any]]:
        token = None
        while True:
            page = self._call(operation, MaxResults=100, **({"NextToken": token} if token else {}), **options)
            yield from page.get(key, [])
            token = page.get("NextToken")
            if not token:
                return

    def _call(self, operation: str, **options: Any) -> dict[str, Any]:
        try:
            return getattr(self.client, operation)(**options)
        except ClientError as error:
            raise ProviderError(f"MTurk {_operation_name(operation)}: {_describe(error)}") from error
        except BotoCoreError as error:
            raise _connection_error(_operation_name(operation), error) from error


def _operation_name(operation: str) -> str:
    return "".join(part.title() for part in operation.split("_")).replace("Hit", "HIT")


def _connection_error(operation: str, error: BotoCoreError) -> ProviderError:
    """botocore's own errors (it has retried already) as one message naming the operation and what to do."""
    if isinstance(error, NoCredentialsError):
        return ProviderError(f"MTurk {operation}: no AWS credentials; set AWS_ACCESS_KEY_ID and "
                             f"AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) for the requester account")
    if isinstance(error, EndpointConnectionError):
        return ProviderError(f"MTurk {operation}: cannot reach {error.kwargs.get('endpoint_url')}; check "
                             f"MTURK_ENDPOINT_URL (or MTURK_SANDBOX) and the network, then run it again: what was "
                             f"done is kept and nothing is done twice")
    if isinstance(error, ConnectionClosedError | ReadTimeoutError):
        return ProviderError(f"MTurk {operation}: the connection kept failing after botocore's retries ({error}); "
                             f"run it again: what was done is kept and nothing is done twice")
    return ProviderError(f"MTurk {operation}: {error}; run it again when MTurk answers")


def _turk_code(error: ClientError) -> str:
    return error.response.get("TurkErrorCode") or error.response.get("Error", {}).get("TurkErrorCode", "")


def _describe(error: ClientError) -> str:
    detail = error.response.get("Error", {})
    code = _turk_code(error) or detail.get("Code", "")
    if detail.get("Code") in ("ThrottlingException", "ServiceUnavailable") or code == "AWS.ServiceUnavailable":
        return f"{code}: still throttled or unavailable after botocore's retries; wait a minute and run it again"
    return f"{code}: {detail.get('Message', error)}"
