"""Amazon Mechanical Turk through boto3.

MTurk stopped taking new requesters on 2026-07-30 and closes on 2026-09-30;
this provider serves existing accounts, archives and MTurk-compatible
endpoints. Tests and the demo run it against `hits.mturk_emulator`, which
speaks the same JSON wire protocol, so boto3 runs unpatched.

Every create call carries a UniqueRequestToken derived from our own ids, so a
retry (botocore retries throttling, 5xx and dropped connections itself) can
never make a second HIT or pay a bonus twice: MTurk answers a reused token
with HitAlreadyExists, which is success.
"""

import hashlib
import re
from decimal import Decimal

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from defusedxml import ElementTree
from django.conf import settings

from hits.providers.base import Provider, ProviderError, Submission, money
from hits.task_types import get_task_type

ENDPOINTS = {
    True: "https://mturk-requester-sandbox.us-east-1.amazonaws.com",
    False: "https://mturk-requester.us-east-1.amazonaws.com",
}
LOCALE = "00000000000000000071"
PERCENT_APPROVED = "000000000000000000L0"
_HIT_ID = re.compile(r"\b[A-Z0-9]{20,}\b")
_ANSWERS_NS = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd}"
_STATUS = {"Submitted": "submitted", "Approved": "approved", "Rejected": "rejected"}


def request_token(*parts):
    """A UniqueRequestToken (≤64 chars) derived from our ids and this installation."""
    salt = hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest()[:8]
    return hashlib.sha256(":".join(map(str, (salt, *parts))).encode()).hexdigest()[:64]


def parse_answer_xml(xml):
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


class MTurkProvider(Provider):
    name = "mturk"
    pulls_submissions = True

    def __init__(self, client, *, question="html", external_url=""):
        self.client = client
        self.question = question
        self.external_url = external_url

    @classmethod
    def from_settings(cls):
        endpoint = settings.MTURK_ENDPOINT_URL or ENDPOINTS[settings.MTURK_SANDBOX]
        client = boto3.client("mturk", region_name="us-east-1", endpoint_url=endpoint,
                              config=Config(retries={"mode": "adaptive", "max_attempts": 10}))
        return cls(client, question=settings.MTURK_QUESTION, external_url=settings.MTURK_EXTERNAL_URL)

    # --- money -------------------------------------------------------------

    def cost_per_assignment(self, reward, assignments_per_hit, masters=False):
        rate = Decimal("0.20") + (Decimal("0.20") if assignments_per_hit >= 10 else 0) + (
            Decimal("0.05") if masters else 0)
        return money(reward) + max(Decimal("0.01"), money(Decimal(reward) * rate))

    def cost_of_bonus(self, amount):
        return money(amount) + max(Decimal("0.01"), money(Decimal(amount) * Decimal("0.20")))

    def available_balance(self):
        return Decimal(self._call("get_account_balance")["AvailableBalance"])

    # --- publishing ----------------------------------------------------------

    def qualification_requirements(self, batch):
        requirements = batch.requirements
        found = [
            {"QualificationTypeId": LOCALE, "Comparator": "In",
             "LocaleValues": [{"Country": country} for country in requirements.get("locales", settings.MTURK_LOCALES)],
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
            {"QualificationTypeId": PERCENT_APPROVED, "Comparator": "GreaterThan",
             "IntegerValues": [int(requirements.get("min_approval_rate", settings.MTURK_MIN_APPROVAL_RATE))],
             "ActionsGuarded": "DiscoverPreviewAndAccept"},
        ]
        if requirements.get("qualification_type_id"):
            found.append({"QualificationTypeId": requirements["qualification_type_id"],
                          "Comparator": "GreaterThanOrEqualTo",
                          "IntegerValues": [int(requirements.get("min_score", 80))], "ActionsGuarded": "Accept"})
        return found

    def prepare(self, batch):
        if batch.provider_state.get("hit_type_id"):
            return
        task_type = get_task_type(batch.task_type)
        response = self._call(
            "create_hit_type", AssignmentDurationInSeconds=batch.assignment_duration, Reward=str(money(batch.reward)),
            Title=task_type.title[:128], Description=task_type.description[:2000], Keywords=task_type.keywords[:1000],
            AutoApprovalDelayInSeconds=batch.auto_approval_delay,
            QualificationRequirements=self.qualification_requirements(batch),
        )
        batch.provider_state = {**batch.provider_state, "hit_type_id": response["HITTypeId"]}
        batch.save(update_fields=["provider_state"])

    def question_xml(self, hit, items):
        if self.question == "external":
            return ('<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                    f'2006-07-14/ExternalQuestion.xsd"><ExternalURL>{self.external_url.rstrip("/")}/mturk/hits/'
                    f'{hit.pk}/</ExternalURL><FrameHeight>0</FrameHeight></ExternalQuestion>')
        html = get_task_type(hit.batch.task_type).html_question(hit, items)
        return ('<HTMLQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                f'2011-11-11/HTMLQuestion.xsd"><HTMLContent><![CDATA[{html}]]></HTMLContent>'
                '<FrameHeight>0</FrameHeight></HTMLQuestion>')

    def publish_hit(self, hit, items):
        batch = hit.batch
        question = self.question_xml(hit, items)
        if len(question.encode("utf-8")) > 65_535:
            raise ProviderError(f"HIT {hit.index} of batch {batch.pk}: the question is over 65,535 bytes; "
                                f"use fewer items per HIT")
        try:
            response = self.client.create_hit_with_hit_type(
                HITTypeId=batch.provider_state["hit_type_id"], MaxAssignments=batch.assignments_per_hit,
                LifetimeInSeconds=batch.lifetime, Question=question,
                RequesterAnnotation=f"crowdset batch {batch.pk} hit {hit.index}",
                UniqueRequestToken=request_token("hit", batch.pk, hit.index),
            )
        except ClientError as error:
            if _turk_code(error) == "AWS.MechanicalTurk.HitAlreadyExists":
                found = _HIT_ID.search(error.response.get("Error", {}).get("Message", ""))
                if found:
                    return found.group()
            raise ProviderError(f"HIT {hit.index} of batch {batch.pk}: {_describe(error)}") from error
        return response["HIT"]["HITId"]

    # --- results -------------------------------------------------------------

    def fetch_submissions(self, batch):
        for hit in batch.hits.exclude(provider_hit_id=""):
            token = None
            while True:
                options = {"HITId": hit.provider_hit_id, "MaxResults": 100,
                           "AssignmentStatuses": ["Submitted", "Approved", "Rejected"]}
                if token:
                    options["NextToken"] = token
                page = self._call("list_assignments_for_hit", **options)
                for assignment in page["Assignments"]:
                    yield Submission(hit.provider_hit_id, assignment["AssignmentId"], assignment["WorkerId"],
                                     parse_answer_xml(assignment["Answer"]), assignment["SubmitTime"],
                                     _STATUS[assignment["AssignmentStatus"]])
                token = page.get("NextToken")
                if not token:
                    break

    def approve(self, assignment, feedback=""):
        options = {"AssignmentId": assignment.provider_assignment_id}
        if feedback:
            options["RequesterFeedback"] = feedback[:1024]
        self._call("approve_assignment", **options)

    def reject(self, assignment, feedback):
        self._call("reject_assignment", AssignmentId=assignment.provider_assignment_id,
                   RequesterFeedback=feedback[:1024])

    def send_bonus(self, worker, assignment, amount, reason, token):
        self._call("send_bonus", WorkerId=worker.external_id, BonusAmount=str(money(amount)),
                   AssignmentId=assignment.provider_assignment_id, Reason=reason, UniqueRequestToken=token)

    def block(self, worker, reason):
        self._call("create_worker_block", WorkerId=worker.external_id, Reason=reason)

    def expire_hit(self, hit):
        if hit.provider_hit_id:
            self._call("update_expiration_for_hit", HITId=hit.provider_hit_id, ExpireAt=0)

    def _call(self, operation, **options):
        try:
            return getattr(self.client, operation)(**options)
        except ClientError as error:
            raise ProviderError(f"MTurk {operation}: {_describe(error)}") from error


def _turk_code(error):
    return error.response.get("TurkErrorCode") or error.response.get("Error", {}).get("TurkErrorCode", "")


def _describe(error):
    detail = error.response.get("Error", {})
    code = _turk_code(error) or detail.get("Code", "")
    return f"{code}: {detail.get('Message', error)}"
