"""Where Prolific sends participants and events.

`/prolific/start/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..` is every batch study's external URL: the
three values are checked with Prolific (the submission exists, is that participant's, in that study, and
still open) before anything is stored; the participant is then bound to this browser session and given a
HIT through the same claim engine as in-house annotators, or the HIT they hold when they come back.
`/prolific/hooks/` takes Prolific's webhooks: signed (HMAC-SHA256 of timestamp + body), each event id
once, handed to a Celery task (hits.tasks.prolific_event) and answered at once; they only make the periodic
sync sooner, which stays the source of truth.
"""

import base64
import hashlib
import hmac
import json
import logging
import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from hits import services
from hits.crowd_auth import bind_worker
from hits.models import Assignment, Batch, ProviderEvent, Worker
from hits.providers import get_provider
from hits.providers.base import ProviderBusy, ProviderError
from hits.services.sync import claim_deadline
from hits.tasks import batch_sync as batch_sync_task
from hits.tasks import prolific_event

logger = logging.getLogger(__name__)
OPEN = ("ACTIVE", "RESERVED")


def _refused(request, message, status=403):
    return render(request, "hits/refused.html", {"message": message, "action": None, "batch": None,
                                                 "provider": "Prolific"}, status=status)


def participant_check(params, *, expected_study=None):
    """(participant id, study id, submission) when Prolific confirms the URL's three values, else raise
    services.CrowdError saying what is wrong. Nothing is stored either way. Prolific is asked for at most
    PROLIFIC_PAGE_SECONDS: past that, ProviderBusy."""
    pid, study_id, session_id = _link(params)
    if expected_study is not None and study_id != expected_study:
        raise services.CrowdError("this link belongs to another study; open the study from Prolific again")
    deadline = time.monotonic() + settings.PROLIFIC_PAGE_SECONDS
    try:
        submission = get_provider("prolific").submission(session_id, deadline=deadline)
    except ProviderBusy:
        raise
    except ProviderError as error:
        logger.error("Prolific could not be asked about submission %s: %s", session_id, error)
        raise services.CrowdError("Prolific could not be reached to check this link; try again in a minute") from None
    if submission is None or submission.get("participant") != pid or submission.get("study_id") != study_id:
        logger.warning("refused a Prolific link: submission %s is not participant %s's in study %s", session_id, pid,
                       study_id)
        raise services.CrowdError("this link is not yours: the session it names is not your submission in this "
                                  "study. Open the study from Prolific again")
    return pid, study_id, submission


def _link(params):
    pid, study_id, session_id = (params.get(name, "").strip() for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"))
    if not (pid and study_id and session_id) or max(map(len, (pid, study_id, session_id))) > 64:
        raise services.CrowdError("this link lacks what Prolific adds to it (PROLIFIC_PID, STUDY_ID, SESSION_ID); "
                                  "open the study from Prolific again")
    return pid, study_id, session_id


def busy_page(request, batch=None):
    """Prolific did not answer in the time a page may wait: the participant is told to come back in a minute, and
    a batch's study is synced in the background (which holds their place here, bound to their submission, so that
    the link works without asking Prolific again)."""
    if batch is not None:
        transaction.on_commit(lambda: batch_sync_task.delay(batch.pk))
    response = render(request, "hits/refused.html", {
        "message": "Prolific is busy right now and could not confirm your link. Your place is kept: try this link "
                   "again in a minute.", "action": None, "batch": None, "provider": "Prolific"}, status=503)
    response["Retry-After"] = "60"
    return response


def prolific_start(request):
    batch = Batch.objects.filter(provider="prolific", provider_state__study_id=request.GET.get("STUDY_ID", "")).first()
    if batch is None:
        return _refused(request, "this study is not one of ours (or the link was changed); open the study from "
                                 "Prolific again", status=404)
    try:
        pid, study_id, session_id = _link(request.GET)
    except services.CrowdError as error:
        return _refused(request, str(error))
    # A place the study's sync found at Prolific and holds for this participant: Prolific has said whose it is.
    held = (Assignment.objects.filter(provider_assignment_id=session_id, hit__batch=batch).select_related("worker")
            .first())
    if held is not None and held.worker.external_id == pid:
        bind_worker(request, held.worker, submission=session_id, study=study_id)
        return redirect("hits:assignment", assignment_id=held.pk)
    try:
        pid, study_id, submission = participant_check(request.GET, expected_study=batch.provider_state["study_id"])
    except ProviderBusy:
        return busy_page(request, batch)
    except services.CrowdError as error:
        return _refused(request, str(error))
    worker, _ = Worker.objects.get_or_create(provider="prolific", external_id=pid)
    if held is not None and held.worker_id != worker.pk:
        return _refused(request, "this submission is bound to another participant")
    bind_worker(request, worker, submission=submission["id"], study=study_id)
    if submission["status"] not in OPEN:
        return _refused(request, f"Prolific has this submission {submission['status'].lower()}; there is nothing "
                                 f"more to do here", status=409)
    try:
        assignment = services.assignment_claim(batch=batch, worker=worker)
    except services.CrowdError as error:
        return _refused(request, str(error))
    if assignment is None:
        return _refused(request, "every HIT of this study is taken; return the study on Prolific so that you are "
                                 "not timed out", status=409)
    started = parse_datetime(submission["started_at"]) if submission.get("started_at") else None
    try:
        with transaction.atomic():
            updated = Assignment.objects.filter(pk=assignment.pk, provider_assignment_id="").update(
                provider_assignment_id=submission["id"],
                deadline=claim_deadline(batch, started, assignment.deadline))
    except IntegrityError:
        updated = 0  # the same link opened twice at once: the other request bound the submission
    if not updated and assignment.provider_assignment_id != submission["id"]:
        held = Assignment.objects.get(provider_assignment_id=submission["id"])
        return redirect("hits:assignment", assignment_id=held.pk)
    return redirect("hits:assignment", assignment_id=assignment.pk)


def _signature_ok(request):
    secret = settings.PROLIFIC_WEBHOOK_SECRET
    timestamp = request.headers.get("X-Prolific-Request-Timestamp", "")
    given = request.headers.get("X-Prolific-Request-Signature", "")
    if not (secret and timestamp and given):
        return False
    expected = base64.b64encode(hmac.new(secret.encode(), timestamp.encode() + request.body, hashlib.sha256)
                                .digest()).decode()
    try:
        fresh = abs(time.time() - float(timestamp)) < 24 * 3600  # Prolific retries for a day
    except ValueError:
        return False
    return fresh and hmac.compare_digest(expected, given)


@csrf_exempt
@require_POST
def prolific_hook(request):
    if not _signature_ok(request):
        logger.warning("refused a Prolific webhook with a missing or wrong signature from %s",
                       request.META.get("REMOTE_ADDR"))
        return HttpResponse("signature refused", status=403, content_type="text/plain")
    event_id = request.headers.get("X-Event-ID", "")[:100]
    try:
        with transaction.atomic():
            ProviderEvent.objects.create(provider="prolific", event_id=event_id,
                                         body=request.body.decode("utf-8", "replace")[:10000])
    except IntegrityError:
        return JsonResponse({"ignored": "seen before"})  # a retry or a replay: done once already
    try:
        event = json.loads(request.body)
    except ValueError:
        return HttpResponse("the body is not JSON", status=400, content_type="text/plain")
    if not isinstance(event, dict) or not isinstance(event.get("resource_id"), str):
        return HttpResponse("the event has no resource_id", status=400, content_type="text/plain")
    # The sync asks Prolific and may take a while: a worker does it, and Prolific gets its answer at once.
    kind, resource = str(event.get("event_type", ""))[:60], event["resource_id"][:64]
    transaction.on_commit(lambda: prolific_event.delay(kind, resource))
    return JsonResponse({"received": event_id})
