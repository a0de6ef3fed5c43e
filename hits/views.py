"""In-house crowd work: the annotator's list of work, claiming a place in a
HIT, the HIT page (the task type's template) and submitting it."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_POST

from config.roles import ANNOTATOR, role_required
from hits import services
from hits.models import Assignment, Batch, Hit
from hits.task_types import get_task_type


@role_required(ANNOTATOR)
def work_list(request):
    worker = services.worker_for_user(request.user)
    batches = Batch.objects.filter(provider="inhouse", state=Batch.State.PUBLISHED).order_by("pk")
    open_assignments = (Assignment.objects.filter(worker=worker, state=Assignment.State.CLAIMED)
                        .select_related("hit__batch").order_by("claimed"))
    return render(request, "hits/work_list.html", {"batches": batches, "open_assignments": open_assignments,
                                                   "worker": worker, "pay": services.worker_pay(worker=worker)})


@role_required(ANNOTATOR)
@require_POST
def work_claim(request, batch_id):
    batch = get_object_or_404(Batch, pk=batch_id, provider="inhouse")
    try:
        assignment = services.assignment_claim(batch=batch, worker=services.worker_for_user(request.user))
    except services.CrowdError as error:
        messages.error(request, str(error))
        return redirect("hits:work_list")
    if assignment is None:
        messages.info(request, f"No HIT of {batch.name} is left for you.")
        return redirect("hits:work_list")
    return redirect("hits:assignment", assignment_id=assignment.pk)


@role_required(ANNOTATOR)
def assignment_page(request, assignment_id):
    worker = services.worker_for_user(request.user)
    assignment = get_object_or_404(Assignment.objects.select_related("hit__batch"), pk=assignment_id, worker=worker)
    task_type = get_task_type(assignment.hit.batch.task_type)
    return render(request, task_type.template, {"assignment": assignment, "hit": assignment.hit, "task_type": task_type,
                                                **task_type.page_context(assignment.hit.ordered_items())})


@role_required(ANNOTATOR)
@require_POST
def assignment_submit(request, assignment_id):
    worker = services.worker_for_user(request.user)
    assignment = get_object_or_404(Assignment.objects.select_related("hit__batch"), pk=assignment_id)
    if assignment.worker_id != worker.pk:
        return HttpResponse(f"assignment {assignment_id} belongs to another worker", status=403,
                            content_type="text/plain")
    raw = {key: value for key, value in request.POST.items() if key != "csrfmiddlewaretoken"}
    try:
        assignment, stored = services.assignment_submit(assignment=assignment, worker=worker, raw_answers=raw)
    except services.CrowdError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    messages.success(request, "Thank you, your answers are saved." if stored else "These answers were already saved.")
    return redirect("hits:work_list")


@xframe_options_exempt
def mturk_hit_page(request, hit_id):
    """The ExternalQuestion page MTurk shows in its iframe: the same self-contained
    form as the HTMLQuestion, reading assignmentId/turkSubmitTo from the URL and
    posting to MTurk's externalSubmit. Only HITs of MTurk batches are served."""
    hit = get_object_or_404(Hit.objects.select_related("batch"), pk=hit_id, batch__provider="mturk")
    task_type = get_task_type(hit.batch.task_type)
    return HttpResponse(task_type.html_question(hit, hit.ordered_items()))
