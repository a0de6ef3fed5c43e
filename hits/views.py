"""In-house crowd work: the annotator's list of work, claiming a place in a HIT, the HIT page (the task
type's template), drafts, more time, giving a HIT back and submitting it (and taking the next)."""

from django.contrib import messages
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_POST

from accounts import access
from accounts.roles import ANNOTATOR, role_required
from hits import extensions, selectors, services
from hits.crowd_auth import worker_required
from hits.models import Assignment, Batch, Hit
from hits.providers import get_provider
from hits.task_types import get_task_type

# Form fields the pages add for themselves, not answers (a draft does not keep them).
_NOT_ANSWERS = ("csrfmiddlewaretoken", "next")


@role_required(ANNOTATOR)
def work_list(request):
    worker = services.worker_for_user(request.user)
    services.assignments_expire_overdue(worker=worker)
    return render(request, "hits/work_list.html", {"worker": worker, "pay": services.worker_pay(worker=worker),
                                                   "currency": get_provider("inhouse").currency,
                                                   **selectors.work_for(worker)})


def _refused(request, error, *, batch=None, status=403):
    """A page that says what went wrong and what the worker can do next, never a bare status."""
    return render(request, "hits/refused.html", {"message": str(error), "action": getattr(error, "action", None),
                                                 "batch": batch}, status=status)


@role_required(ANNOTATOR)
@require_POST
def work_claim(request, batch_id):
    batch = access.get_or_404(request.user, Batch.objects.filter(provider="inhouse"), access.WORK, pk=batch_id)
    if batch.state in (Batch.State.COMPLETED, Batch.State.EXPIRED):
        # Finished work is not a refusal: a worker who was on the list page a moment ago goes back to it.
        messages.info(request, f"{batch.name} is {batch.state}: no HIT of it is left.")
        return redirect("hits:work_list")
    try:
        assignment = services.assignment_claim(batch=batch, worker=services.worker_for_user(request.user))
    except services.CrowdError as error:
        return _refused(request, error, batch=batch)
    if assignment is None:
        messages.info(request, f"No HIT of {batch.name} is left for you: every place is taken or done.")
        return redirect("hits:work_list")
    return redirect("hits:assignment", assignment_id=assignment.pk)


def _own_assignment(request, assignment_id):
    """The worker's own assignment; another worker's is not found, as if it did not exist (its batch is not theirs to
    see)."""
    assignment = get_object_or_404(Assignment.objects.select_related("hit__batch"), pk=assignment_id,
                                   worker=request.worker)
    return request.worker, assignment


def _task_page(request, assignment, *, draft=None, error="", status=200):
    task_type = get_task_type(assignment.hit.batch.task_type)
    batch = assignment.hit.batch
    inhouse = batch.provider == "inhouse"
    # A Prolific participant has one place in the study: no next HIT, and the place is given back on Prolific.
    urls = {"draft": reverse("hits:draft", args=[assignment.pk]),
            "submit": reverse("hits:submit", args=[assignment.pk]),
            "extend": reverse("hits:extend", args=[assignment.pk])
            if inhouse and assignment.extensions < services.MAX_EXTENSIONS else "",
            "return": reverse("hits:return", args=[assignment.pk]) if inhouse else "", "next": inhouse}
    # Who answers, as a page's script may need it (a triad test's order is seeded by it, as in Potato): the
    # annotator's name on this site, else the provider's id for them.
    worker = request.worker
    participant = request.user.username if worker.user_id and request.user.is_authenticated else worker.external_id
    return render(request, task_type.template, {
        "assignment": assignment, "hit": assignment.hit, "task_type": task_type, "urls": urls, "error": error,
        "participant": participant,
        "currency": get_provider(batch.provider).currency,
        "duration": batch.assignment_duration, "draft": draft if draft is not None else (assignment.draft or {}),
        **task_type.hit_page(assignment.hit), **task_type.assignment_page(assignment)}, status=status)


@worker_required
def assignment_page(request, assignment_id):
    worker = request.worker
    # Another worker's HIT is not found, as if it did not exist: its sentences are not theirs to see.
    assignment = get_object_or_404(Assignment.objects.select_related("hit__batch"), pk=assignment_id, worker=worker)
    services.assignment_expire_if_overdue(assignment=assignment)
    if assignment.state != Assignment.State.CLAIMED:
        return _ended(request, assignment)
    return _task_page(request, assignment)


def _ended(request, assignment):
    """A HIT the worker can no longer work on: say what happened and offer the next one."""
    batch = assignment.hit.batch
    return render(request, "hits/ended.html", {
        "assignment": assignment, "batch": batch, "open": batch.state == Batch.State.PUBLISHED,
        "reason": assignment.can_submit(request.worker) or "", "inhouse": batch.provider == "inhouse",
        "complete": completion_url(batch) if batch.provider != "inhouse"
        and assignment.state in Assignment.DONE_STATES else ""},
        status=410 if assignment.state == Assignment.State.EXPIRED else 200)


def _wants_json(request):
    return "application/json" in request.headers.get("Accept", "")


@worker_required
@require_POST
def assignment_draft(request, assignment_id):
    """Keep the answers given so far (the page posts them as the worker goes)."""
    worker, assignment = _own_assignment(request, assignment_id)
    fields = {key: value for key, value in request.POST.items() if key not in _NOT_ANSWERS}
    try:
        assignment = services.assignment_draft_save(assignment=assignment, worker=worker, fields=fields)
    except services.CrowdError as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse({"saved": assignment.draft_saved.isoformat()})


@worker_required
@require_POST
def assignment_extend(request, assignment_id):
    worker, assignment = _own_assignment(request, assignment_id)
    try:
        assignment = services.assignment_extend(assignment=assignment, worker=worker)
    except services.CrowdError as error:
        if _wants_json(request):
            return JsonResponse({"error": str(error)}, status=409)
        messages.error(request, str(error))
        return redirect("hits:assignment", assignment_id=assignment.pk)
    if _wants_json(request):
        return JsonResponse({"deadline": assignment.deadline.isoformat(),
                             "more": assignment.extensions < services.MAX_EXTENSIONS})
    messages.success(request, f"You have until {timezone.localtime(assignment.deadline):%H:%M} for this HIT.")
    return redirect("hits:assignment", assignment_id=assignment.pk)


@worker_required
@require_POST
def assignment_return(request, assignment_id):
    worker, assignment = _own_assignment(request, assignment_id)
    try:
        services.assignment_return(assignment=assignment, worker=worker)
    except services.CrowdError as error:
        return _refused(request, error, batch=assignment.hit.batch, status=409)
    messages.info(request, f"You returned HIT {assignment.hit.number} of {assignment.hit.batch.name}; "
                           f"someone else can take it now.")
    return redirect("hits:work_list")


@worker_required
@require_POST
def assignment_submit(request, assignment_id):
    worker, assignment = _own_assignment(request, assignment_id)
    raw = {key: value for key, value in request.POST.items() if key not in _NOT_ANSWERS}
    try:
        assignment, stored = services.assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)
    except services.CrowdError as error:
        assignment.refresh_from_db()
        if assignment.state != Assignment.State.CLAIMED:
            return _ended(request, assignment)
        # Shown on the task page itself, with every answer as it was sent: nothing is lost.
        return _task_page(request, assignment, draft=raw, error=str(error), status=400)
    if assignment.hit.batch.provider != "inhouse":
        # Back to the provider with the study's completion code (Prolific): that is how the place counts there.
        return redirect(completion_url(assignment.hit.batch))
    messages.success(request, f"Thank you: your answers to HIT {assignment.hit.number} are saved." if stored
                     else "These answers were saved already.")
    for notice in extensions.notices(assignment.hit.batch, worker) if stored else []:
        messages.add_message(request, messages.INFO if getattr(notice, "level", "") == "info" else messages.WARNING,
                             notice)
    if request.POST.get("next") == "1":
        return _next(request, assignment.hit.batch, worker)
    return redirect("hits:work_list")


def _next(request, batch, worker):
    try:
        following = services.assignment_claim(batch=batch, worker=worker)
    except services.CrowdError as error:
        messages.info(request, str(error))
        return redirect("hits:work_list")
    if following is None:
        messages.info(request, f"That was the last HIT of {batch.name} for you.")
        return redirect("hits:work_list")
    return redirect("hits:assignment", assignment_id=following.pk)


def completion_url(batch):
    provider = get_provider(batch.provider)
    return f"{provider.complete_url}?cc={batch.provider_state.get('completion_code', '')}"


@xframe_options_exempt
def mturk_hit_page(request, hit_id):
    """The ExternalQuestion page MTurk shows in its iframe: the same self-contained
    form as the HTMLQuestion, reading assignmentId/turkSubmitTo from the URL and
    posting to MTurk's externalSubmit. Only the HIT MTurk sent the worker to is served: MTurk adds its own id
    of the HIT (`hitId`) to the URL, so a worker reaches no other HIT of this site by changing the number."""
    hit = get_object_or_404(Hit.objects.select_related("batch").exclude(provider_hit_id=""), pk=hit_id,
                            batch__provider="mturk", provider_hit_id=request.GET.get("hitId", ""))
    task_type = get_task_type(hit.batch.task_type)
    return HttpResponse(task_type.html_question(hit, hit.ordered_items()))
