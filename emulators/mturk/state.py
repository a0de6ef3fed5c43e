"""The emulated MTurk account: HIT types, HITs, assignments, workers, money.

Plain Python, guarded by one lock; the HTTP layer (`server.py`) turns requests
into calls here. Behaviour follows the Requester API reference in
`shared/docs/mturk-api.md`: status machines, 24-hour UniqueRequestToken
idempotency, pagination, qualification checks when a worker accepts, and
automatic approval after the auto-approval delay.
"""

import base64
import hashlib
import json
import random
import re
import string
import threading
import time
from decimal import Decimal
from xml.sax.saxutils import escape

TOKEN_WINDOW = 24 * 3600
LOCALE = "00000000000000000071"
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
MASTERS = {"2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"}
CENT = Decimal("0.01")
ANSWERS_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
_MONEY = re.compile(r"^[0-9]+(\.)?[0-9]{0,2}$")


class RequestError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = f"AWS.MechanicalTurk.{code}" if not code.startswith("AWS.") else code
        self.message = message


class WorkerError(Exception):
    """Refused on the worker side (accept or submit); `status` is the HTTP status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Account:
    def __init__(self, *, seed=0, balance="10000.00", clock=time.time):
        self.lock = threading.RLock()
        self.random = random.Random(seed)
        self.clock = clock
        self.balance = Decimal(balance)
        self.hit_types = {}
        self.hits = {}
        self.assignments = {}
        self.tokens = {}
        self.workers = {}
        self.blocks = {}
        self.qualification_types = {}
        self.scores = {}
        self.grant_times = {}
        self.test_times = {}
        self.bonuses = []
        self.notifications = []

    def new_id(self, prefix="3", length=30):
        return prefix + "".join(self.random.choice(string.ascii_uppercase + string.digits) for _ in range(length - 1))

    # --- requester operations ---------------------------------------------------

    def CreateHITType(self, body):
        for field in ("AssignmentDurationInSeconds", "Reward", "Title", "Description"):
            _require(body, field)
        _money(body["Reward"], "Reward")
        properties = {key: body.get(key) for key in ("AssignmentDurationInSeconds", "Reward", "Title", "Description",
                                                      "Keywords", "AutoApprovalDelayInSeconds",
                                                      "QualificationRequirements")}
        key = hashlib.sha256(json.dumps(properties, sort_keys=True).encode()).hexdigest()
        type_id = "3" + hashlib.sha256(key.encode()).hexdigest().upper()[:29]
        self.hit_types[type_id] = properties
        return {"HITTypeId": type_id}

    def CreateHITWithHITType(self, body):
        _require(body, "HITTypeId")
        _require(body, "LifetimeInSeconds")
        hit_type = self.hit_types.get(body["HITTypeId"])
        if hit_type is None:
            raise RequestError("InvalidParameterValue", f"HITTypeId {body['HITTypeId']} does not exist.")
        return self._create_hit(body, hit_type)

    def CreateHIT(self, body):
        hit_type = self.CreateHITType(body)
        return self._create_hit(body, self.hit_types[hit_type["HITTypeId"]], hit_type["HITTypeId"])

    def _create_hit(self, body, hit_type, type_id=None):
        token = body.get("UniqueRequestToken")
        now = self.clock()
        if token:
            if not 1 <= len(token) <= 64:
                raise RequestError("InvalidParameterValue", "UniqueRequestToken must be 1 to 64 characters.")
            seen = self.tokens.get(("hit", token))
            if seen and now - seen[0] < TOKEN_WINDOW:
                raise RequestError("HitAlreadyExists",
                                   f"The HIT with ID {seen[1]} already exists with this UniqueRequestToken.")
        lifetime = int(body["LifetimeInSeconds"])
        if not 30 <= lifetime <= 365 * 24 * 3600:
            raise RequestError("InvalidParameterValue", "LifetimeInSeconds must be between 30 and 31536000.")
        question = body.get("Question", "")
        if len(question.encode("utf-8")) > 65_535:
            raise RequestError("InvalidParameterValue", "Question must be at most 65535 bytes.")
        hit_id = self.new_id()
        self.hits[hit_id] = {
            "HITId": hit_id, "HITTypeId": type_id or body["HITTypeId"], "HITGroupId": self.new_id("3"),
            "CreationTime": now, "Title": hit_type["Title"], "Description": hit_type["Description"],
            "Question": question, "Keywords": hit_type.get("Keywords") or "",
            "MaxAssignments": int(body.get("MaxAssignments", 1)), "Reward": hit_type["Reward"],
            "AutoApprovalDelayInSeconds": int(hit_type.get("AutoApprovalDelayInSeconds") or 30 * 24 * 3600),
            "Expiration": now + lifetime,
            "AssignmentDurationInSeconds": int(hit_type["AssignmentDurationInSeconds"]),
            "RequesterAnnotation": body.get("RequesterAnnotation", ""),
            "QualificationRequirements": hit_type.get("QualificationRequirements") or [],
            "HITReviewStatus": "NotReviewed",
        }
        if token:
            self.tokens[("hit", token)] = (now, hit_id)
        return {"HIT": self._hit_view(hit_id)}

    def CreateAdditionalAssignmentsForHIT(self, body):
        hit = self._hit(body)
        _require(body, "NumberOfAdditionalAssignments")
        extra = int(body["NumberOfAdditionalAssignments"])
        if extra < 1:
            raise RequestError("InvalidParameterValue", "NumberOfAdditionalAssignments must be at least 1.")
        if hit["MaxAssignments"] < 10 <= hit["MaxAssignments"] + extra:
            # MTurk's rule: the +20% fee for 10 or more assignments cannot be dodged by growing a smaller HIT.
            raise RequestError("InvalidParameterValue", "A HIT created with fewer than 10 assignments cannot be "
                                                        "extended to 10 or more.")
        token = body.get("UniqueRequestToken")
        now = self.clock()
        if token:
            seen = self.tokens.get(("extend", token))
            if seen and now - seen[0] < TOKEN_WINDOW:
                raise RequestError("DuplicateRequest", "This UniqueRequestToken was already used.")
            self.tokens[("extend", token)] = (now, hit["HITId"])
        hit["MaxAssignments"] += extra
        return {}

    def GetHIT(self, body):
        return {"HIT": self._hit_view(self._hit(body)["HITId"])}

    def ListHITs(self, body):
        return self._page(body, sorted(self.hits), "HITs", self._hit_view)

    def ListReviewableHITs(self, body):
        status = body.get("Status", "Reviewable")
        ids = [hit_id for hit_id in sorted(self.hits)
               if self._hit_status(hit_id) == status
               and (not body.get("HITTypeId") or self.hits[hit_id]["HITTypeId"] == body["HITTypeId"])]
        return self._page(body, ids, "HITs", self._hit_view)

    def ListAssignmentsForHIT(self, body):
        hit = self._hit(body)
        statuses = body.get("AssignmentStatuses") or ["Submitted", "Approved", "Rejected"]
        self._auto_approve()
        ids = [a["AssignmentId"] for a in self._assignments_of(hit["HITId"]) if a["AssignmentStatus"] in statuses]
        return self._page(body, ids, "Assignments", self._assignment_view)

    def GetAssignment(self, body):
        assignment = self._assignment(body)
        return {"Assignment": self._assignment_view(assignment["AssignmentId"]),
                "HIT": self._hit_view(assignment["HITId"])}

    def ApproveAssignment(self, body):
        assignment = self._assignment(body)
        overriding = assignment["AssignmentStatus"] == "Rejected" and body.get("OverrideRejection")
        if assignment["AssignmentStatus"] != "Submitted" and not overriding:
            raise RequestError("InvalidAssignmentState",
                               f"Assignment {assignment['AssignmentId']} is {assignment['AssignmentStatus']}, "
                               f"not Submitted.")
        self._pay_reward(assignment)
        assignment.update(AssignmentStatus="Approved", ApprovalTime=self.clock(),
                          RequesterFeedback=body.get("RequesterFeedback", ""))
        return {}

    def RejectAssignment(self, body):
        assignment = self._assignment(body)
        _require(body, "RequesterFeedback")
        if assignment["AssignmentStatus"] != "Submitted":
            raise RequestError("InvalidAssignmentState",
                               f"Assignment {assignment['AssignmentId']} is {assignment['AssignmentStatus']}, "
                               f"not Submitted.")
        assignment.update(AssignmentStatus="Rejected", RejectionTime=self.clock(),
                          RequesterFeedback=body["RequesterFeedback"][:1024])
        return {}

    def SendBonus(self, body):
        for field in ("WorkerId", "BonusAmount", "AssignmentId", "Reason"):
            _require(body, field)
        _money(body["BonusAmount"], "BonusAmount")
        assignment = self._assignment(body)
        if assignment["WorkerId"] != body["WorkerId"]:
            raise RequestError("InvalidParameterValue", "The assignment was not done by this worker.")
        token = body.get("UniqueRequestToken")
        now = self.clock()
        if token:
            seen = self.tokens.get(("bonus", token))
            if seen and now - seen[0] < TOKEN_WINDOW:
                raise RequestError("DuplicateRequest",
                                   "A bonus with this UniqueRequestToken was already sent.")
            self.tokens[("bonus", token)] = (now, None)
        amount = Decimal(body["BonusAmount"])
        self._pay(amount + _fee(amount, 0.20))
        self.bonuses.append({"WorkerId": body["WorkerId"], "BonusAmount": f"{amount:.2f}",
                             "AssignmentId": body["AssignmentId"], "Reason": body["Reason"], "GrantTime": now})
        return {}

    def ListBonusPayments(self, body):
        if bool(body.get("HITId")) == bool(body.get("AssignmentId")):
            raise RequestError("InvalidParameterValue", "Give exactly one of HITId and AssignmentId.")
        if body.get("HITId"):
            hit_id = self._hit(body)["HITId"]
            assignments = {a for a, found in self.assignments.items() if found["HITId"] == hit_id}
        else:
            assignments = {self._assignment(body)["AssignmentId"]}
        found = [n for n, bonus in enumerate(self.bonuses) if bonus["AssignmentId"] in assignments]
        return self._page(body, found, "BonusPayments", lambda n: dict(self.bonuses[n]))

    def NotifyWorkers(self, body):
        for field in ("Subject", "MessageText", "WorkerIds"):
            _require(body, field)
        if len(body["Subject"]) > 200 or len(body["MessageText"]) > 4096 or not 1 <= len(body["WorkerIds"]) <= 100:
            raise RequestError("InvalidParameterValue", "Subject is at most 200 characters, MessageText at most "
                                                        "4096, and WorkerIds holds 1 to 100 ids.")
        failures = []
        for worker_id in body["WorkerIds"]:
            if worker_id not in self.workers:
                failures.append({"NotifyWorkersFailureCode": "HardFailure", "WorkerId": worker_id,
                                 "NotifyWorkersFailureMessage": f"Worker {worker_id} is not known to this requester."})
            else:
                self.notifications.append({"WorkerId": worker_id, "Subject": body["Subject"],
                                           "MessageText": body["MessageText"], "SentTime": self.clock()})
        return {"NotifyWorkersFailureStatuses": failures}

    def UpdateExpirationForHIT(self, body):
        hit = self._hit(body)
        _require(body, "ExpireAt")
        # Earlier or later: a time in the past (or 0) expires the HIT at once.
        hit["Expiration"] = max(float(body["ExpireAt"]), self.clock())
        return {}

    def DeleteHIT(self, body):
        hit = self._hit(body)
        if self._hit_status(hit["HITId"]) != "Reviewable" or any(
                a["AssignmentStatus"] == "Submitted" for a in self._assignments_of(hit["HITId"])):
            raise RequestError("InvalidHITState", "This HIT is not Reviewable or has unreviewed assignments.")
        hit["Disposed"] = True
        return {}

    def GetAccountBalance(self, body):
        return {"AvailableBalance": f"{self.balance:.2f}", "OnHoldBalance": "0.00"}

    def CreateWorkerBlock(self, body):
        _require(body, "WorkerId")
        _require(body, "Reason")
        self.blocks[body["WorkerId"]] = body["Reason"]
        return {}

    def DeleteWorkerBlock(self, body):
        _require(body, "WorkerId")
        self.blocks.pop(body["WorkerId"], None)
        return {}

    def ListWorkerBlocks(self, body):
        return self._page(body, sorted(self.blocks), "WorkerBlocks",
                          lambda worker: {"WorkerId": worker, "Reason": self.blocks[worker]})

    def CreateQualificationType(self, body):
        for field in ("Name", "Description", "QualificationTypeStatus"):
            _require(body, field)
        if any(q["Name"] == body["Name"] for q in self.qualification_types.values()):
            raise RequestError("QualificationTypeAlreadyExists",
                               f"You have already created a QualificationType with this name: {body['Name']}")
        type_id = self.new_id("3")
        self.qualification_types[type_id] = {"QualificationTypeId": type_id, "CreationTime": self.clock(),
                                             **{k: v for k, v in body.items()}}
        return {"QualificationType": self.qualification_types[type_id]}

    def GetQualificationType(self, body):
        return {"QualificationType": self._qualification_type(body)}

    def ListQualificationTypes(self, body):
        if "MustBeRequestable" not in body:
            _require(body, "MustBeRequestable")
        query = (body.get("Query") or "").lower()
        ids = [type_id for type_id, found in sorted(self.qualification_types.items())
               if query in found["Name"].lower() or query in found.get("Description", "").lower()]
        return self._page(body, ids, "QualificationTypes", lambda type_id: self.qualification_types[type_id])

    def AssociateQualificationWithWorker(self, body):
        type_id = self._qualification_type(body)["QualificationTypeId"]
        _require(body, "WorkerId")
        self.scores[type_id, body["WorkerId"]] = int(body.get("IntegerValue", 1))
        self.grant_times[type_id, body["WorkerId"]] = self.clock()
        return {}

    def DisassociateQualificationFromWorker(self, body):
        type_id = self._qualification_type(body)["QualificationTypeId"]
        _require(body, "WorkerId")
        if self.scores.pop((type_id, body["WorkerId"]), None) is None:
            raise RequestError("DoesNotExist", f"Worker {body['WorkerId']} does not have this qualification.")
        return {}

    def GetQualificationScore(self, body):
        type_id = self._qualification_type(body)["QualificationTypeId"]
        _require(body, "WorkerId")
        if (type_id, body["WorkerId"]) not in self.scores:
            raise RequestError("DoesNotExist", f"Worker {body['WorkerId']} does not have this qualification.")
        return {"Qualification": self._score_view(type_id, body["WorkerId"])}

    def ListWorkersWithQualificationType(self, body):
        type_id = self._qualification_type(body)["QualificationTypeId"]
        workers = sorted(worker for (qualification, worker) in self.scores if qualification == type_id)
        return self._page(body, workers, "Qualifications", lambda worker: self._score_view(type_id, worker))

    # --- worker side -----------------------------------------------------------

    def take_qualification_test(self, worker_id, type_id, answers):
        """Grade a worker's test with the type's AnswerKey, as MTurk does; returns the value granted."""
        qualification = self.qualification_types.get(type_id)
        if qualification is None or not qualification.get("AnswerKey"):
            raise WorkerError(404, f"no qualification test {type_id}")
        if worker_id in self.blocks:
            raise WorkerError(403, f"worker {worker_id} is blocked by this requester")
        now = self.clock()
        last = self.test_times.get((type_id, worker_id))
        delay = qualification.get("RetryDelayInSeconds")
        if last is not None and (delay is None or now - last < int(delay)):
            raise WorkerError(409, f"worker {worker_id} may not retake {type_id} yet")
        score = grade_answer_key(qualification["AnswerKey"], answers)
        self.test_times[type_id, worker_id] = now
        self.scores[type_id, worker_id] = score
        self.grant_times[type_id, worker_id] = now
        return score

    def register_worker(self, worker_id, *, locale="US", approval_rate=99, approved=5000, masters=False):
        if not re.fullmatch(r"A[A-Z0-9]+", worker_id):
            raise WorkerError(400, "worker ids start with A and hold only A-Z and 0-9")
        self.workers[worker_id] = {"locale": locale, "approval_rate": approval_rate, "approved": approved,
                                   "masters": masters}

    def assignable_hits(self, worker_id):
        return [self._hit_view(hit_id) for hit_id in sorted(self.hits)
                if self._hit_status(hit_id) == "Assignable"
                and not any(a["WorkerId"] == worker_id for a in self._assignments_of(hit_id))
                and self._qualification_failure(worker_id, self.hits[hit_id]) is None]

    def accept(self, worker_id, hit_id):
        if worker_id not in self.workers:
            raise WorkerError(403, f"unknown worker {worker_id}")
        if worker_id in self.blocks:
            raise WorkerError(403, f"worker {worker_id} is blocked by this requester")
        hit = self.hits.get(hit_id)
        if hit is None:
            raise WorkerError(404, f"no HIT {hit_id}")
        if any(a["WorkerId"] == worker_id for a in self._assignments_of(hit_id)):
            raise WorkerError(409, f"worker {worker_id} already worked on HIT {hit_id}")
        failure = self._qualification_failure(worker_id, hit)
        if failure:
            raise WorkerError(403, failure)
        if self._hit_status(hit_id) != "Assignable":
            raise WorkerError(409, f"HIT {hit_id} has no place left")
        now = self.clock()
        assignment_id = self.new_id("3")
        self.assignments[assignment_id] = {
            "AssignmentId": assignment_id, "WorkerId": worker_id, "HITId": hit_id, "AssignmentStatus": "Accepted",
            "AcceptTime": now, "Deadline": now + hit["AssignmentDurationInSeconds"],
        }
        return assignment_id

    def submit(self, worker_id, assignment_id, fields):
        assignment = self.assignments.get(assignment_id)
        if assignment is None:
            raise WorkerError(404, f"no assignment {assignment_id}")
        if assignment["WorkerId"] != worker_id:
            raise WorkerError(403, f"assignment {assignment_id} belongs to another worker")
        if assignment["AssignmentStatus"] != "Accepted":
            raise WorkerError(409, f"assignment {assignment_id} was already submitted")
        now = self.clock()
        if now > assignment["Deadline"]:
            raise WorkerError(409, f"assignment {assignment_id} ran out of time")
        hit = self.hits[assignment["HITId"]]
        assignment.update(AssignmentStatus="Submitted", SubmitTime=now, Answer=answer_xml(fields),
                          AutoApprovalTime=now + hit["AutoApprovalDelayInSeconds"])

    # --- helpers -------------------------------------------------------------

    def _qualification_failure(self, worker_id, hit):
        worker = self.workers.get(worker_id, {})
        for requirement in hit["QualificationRequirements"]:
            type_id = requirement["QualificationTypeId"]
            if type_id == LOCALE:
                value = worker.get("locale")
                allowed = [locale["Country"] for locale in requirement.get("LocaleValues", [])]
                ok = _compare(requirement["Comparator"], value, allowed)
            elif type_id == PERCENT_APPROVED:
                ok = _compare(requirement["Comparator"], worker.get("approval_rate"),
                              requirement.get("IntegerValues", []))
            elif type_id == NUMBER_APPROVED:
                ok = _compare(requirement["Comparator"], worker.get("approved", 0),
                              requirement.get("IntegerValues", []))
            elif type_id in MASTERS:
                ok = _compare(requirement["Comparator"], 1 if worker.get("masters") else None, [])
            else:
                ok = _compare(requirement["Comparator"], self.scores.get((type_id, worker_id)),
                              requirement.get("IntegerValues", []))
            if not ok:
                return f"worker {worker_id} does not meet the qualification requirement {type_id}"
        return None

    def _hit(self, body):
        _require(body, "HITId")
        hit = self.hits.get(body["HITId"])
        if hit is None or hit.get("Disposed"):
            raise RequestError("HITDoesNotExist", f"Hit {body['HITId']} does not exist. (1658420093)")
        return hit

    def _assignment(self, body):
        _require(body, "AssignmentId")
        assignment = self.assignments.get(body["AssignmentId"])
        if assignment is None or assignment["AssignmentStatus"] == "Accepted":
            raise RequestError("InvalidParameterValue", f"Assignment {body['AssignmentId']} does not exist.")
        self._auto_approve()
        return assignment

    def _qualification_type(self, body):
        _require(body, "QualificationTypeId")
        found = self.qualification_types.get(body["QualificationTypeId"])
        if found is None:
            raise RequestError("DoesNotExist", f"QualificationType {body['QualificationTypeId']} does not exist.")
        return found

    def _assignments_of(self, hit_id):
        now = self.clock()
        for assignment in self.assignments.values():
            if assignment["HITId"] == hit_id:
                if assignment["AssignmentStatus"] == "Accepted" and now > assignment["Deadline"]:
                    assignment["AssignmentStatus"] = "Abandoned"
                if assignment["AssignmentStatus"] != "Abandoned":
                    yield assignment

    def _auto_approve(self):
        now = self.clock()
        for assignment in self.assignments.values():
            if assignment["AssignmentStatus"] == "Submitted" and now >= assignment["AutoApprovalTime"]:
                # MTurk pays an automatic approval as any other, from the balance, fees included.
                self.balance -= self._reward_cost(assignment)
                assignment.update(AssignmentStatus="Approved", ApprovalTime=assignment["AutoApprovalTime"])

    def _counts(self, hit_id):
        counts = {"Accepted": 0, "Submitted": 0, "Approved": 0, "Rejected": 0}
        for assignment in self._assignments_of(hit_id):
            counts[assignment["AssignmentStatus"]] += 1
        return counts

    def _hit_status(self, hit_id):
        hit = self.hits[hit_id]
        if hit.get("Disposed"):
            return "Disposed"
        counts = self._counts(hit_id)
        done = counts["Submitted"] + counts["Approved"] + counts["Rejected"]
        if done >= hit["MaxAssignments"] or (self.clock() >= hit["Expiration"] and not counts["Accepted"]):
            return "Reviewable"
        if self.clock() >= hit["Expiration"] or done + counts["Accepted"] >= hit["MaxAssignments"]:
            return "Unassignable"
        return "Assignable"

    def _hit_view(self, hit_id):
        hit = self.hits[hit_id]
        counts = self._counts(hit_id)
        done = counts["Submitted"] + counts["Approved"] + counts["Rejected"]
        view = {key: value for key, value in hit.items() if key != "Disposed"}
        view.update(HITStatus=self._hit_status(hit_id), NumberOfAssignmentsPending=counts["Accepted"],
                    NumberOfAssignmentsAvailable=max(0, hit["MaxAssignments"] - done - counts["Accepted"]),
                    NumberOfAssignmentsCompleted=done)
        return view

    def _assignment_view(self, assignment_id):
        assignment = self.assignments[assignment_id]
        return {key: value for key, value in assignment.items()}

    def _score_view(self, type_id, worker_id):
        granted = self.grant_times.get((type_id, worker_id), self.clock())
        return {"QualificationTypeId": type_id, "WorkerId": worker_id, "GrantTime": granted,
                "IntegerValue": self.scores[type_id, worker_id], "Status": "Granted"}

    def _page(self, body, ids, key, view):
        limit = int(body.get("MaxResults", 10))
        if not 1 <= limit <= 100:
            raise RequestError("InvalidParameterValue", "MaxResults must be between 1 and 100.")
        start = 0
        if body.get("NextToken"):
            try:
                start = int(base64.b64decode(body["NextToken"]).decode())
            except ValueError:
                raise RequestError("InvalidParameterValue", "NextToken is not valid.") from None
        chunk = ids[start:start + limit]
        page = {key: [view(item) for item in chunk], "NumResults": len(chunk)}
        if start + limit < len(ids):
            page["NextToken"] = base64.b64encode(str(start + limit).encode()).decode()
        return page

    def _pay(self, amount):
        if amount > self.balance:
            raise RequestError("InsufficientFunds", "Your account balance is too low for this operation.")
        self.balance -= amount

    def _reward_cost(self, assignment):
        """The reward and MTurk's commission on it: 20%, +20% for HITs of 10 or more assignments, +5% Masters."""
        hit = self.hits[assignment["HITId"]]
        reward = Decimal(hit["Reward"])
        masters = any(r["QualificationTypeId"] in MASTERS for r in hit["QualificationRequirements"])
        rate = 0.20 + (0.20 if hit["MaxAssignments"] >= 10 else 0) + (0.05 if masters else 0)
        return reward + _fee(reward, rate)

    def _pay_reward(self, assignment):
        self._pay(self._reward_cost(assignment))


def _fee(amount, rate):
    """MTurk's commission on an amount: at least one cent, rounded half up to the cent."""
    return max(CENT, (amount * Decimal(str(rate))).quantize(CENT, rounding="ROUND_HALF_UP"))


def grade_answer_key(answer_key, answers):
    """Score `answers` {QuestionIdentifier: SelectionIdentifier} with an AnswerKey: a selection
    earns its AnswerScore only on an exact match; PercentageMapping gives sum / max × 100,
    rounded half up."""
    from defusedxml import ElementTree

    ns = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd}"
    root = ElementTree.fromstring(answer_key)
    total = Decimal(0)
    for question in root.iter(f"{ns}Question"):
        identifier = question.findtext(f"{ns}QuestionIdentifier")
        for option in question.iter(f"{ns}AnswerOption"):
            if answers.get(identifier) == option.findtext(f"{ns}SelectionIdentifier"):
                total += Decimal(option.findtext(f"{ns}AnswerScore"))
    maximum = root.findtext(f"{ns}QualificationValueMapping/{ns}PercentageMapping/{ns}MaximumSummedScore")
    if maximum is None:
        return int(total)
    return int((total * 100 / Decimal(maximum)).quantize(Decimal(1), rounding="ROUND_HALF_UP"))


def answer_xml(fields):
    answers = "".join(
        f"<Answer><QuestionIdentifier>{escape(name)}</QuestionIdentifier><FreeText>{escape(str(value))}</FreeText>"
        "</Answer>" for name, value in fields.items())
    return (f'<?xml version="1.0" encoding="UTF-8"?><QuestionFormAnswers xmlns="{ANSWERS_NS}">{answers}'
            "</QuestionFormAnswers>")


def _require(body, field):
    if body.get(field) in (None, ""):
        raise RequestError("InvalidParameterValue", f"Value null at '{field}' failed to satisfy constraint: "
                                                    f"Member must not be null")


def _money(value, field):
    if not _MONEY.match(str(value)):
        raise RequestError("InvalidParameterValue", f"{field} {value!r} is not an amount like 0.50")


def _compare(comparator, value, values):
    if comparator == "Exists":
        return value is not None
    if comparator == "DoesNotExist":
        return value is None
    if value is None:
        return False
    if comparator == "In":
        return value in values
    if comparator == "NotIn":
        return value not in values
    target = values[0] if values else None
    return {
        "EqualTo": value == target, "NotEqualTo": value != target, "LessThan": value < target,
        "LessThanOrEqualTo": value <= target, "GreaterThan": value > target,
        "GreaterThanOrEqualTo": value >= target,
    }[comparator]
