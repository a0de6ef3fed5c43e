"""The organizer's spot-check queue: a drawn HIT next to consensus and gold."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from aggregation import services
from aggregation.models import SpotCheck
from config.roles import ORGANIZER, role_required
from hits.services import CrowdError


@role_required(ORGANIZER)
def spot_checks(request):
    pending = (SpotCheck.objects.filter(decision=SpotCheck.Decision.PENDING)
               .select_related("assignment__worker", "assignment__hit__batch").order_by("pk"))
    batch = request.GET.get("batch")
    if batch and batch.isdigit():
        pending = pending.filter(assignment__hit__batch_id=int(batch))
    checks = list(pending[:20])
    rows = {check.pk: _rows(check) for check in checks}
    return render(request, "aggregation/spot_checks.html", {"checks": [(c, rows[c.pk]) for c in checks]})


def _rows(check):
    assignment = check.assignment
    run = assignment.hit.batch.aggregations.order_by("-created").first()
    outcomes = dict(run.outcomes.values_list("item_id", "outcome")) if run else {}
    return [{"item": item, "answer": (assignment.answers or {}).get(str(item.pk)),
             "consensus": outcomes.get(item.pk, "-"), "gold": item.gold_answer}
            for item in assignment.hit.ordered_items()]


@role_required(ORGANIZER)
@require_POST
def spot_check_decide(request, check_id):
    check = get_object_or_404(SpotCheck.objects.select_related("assignment__hit__batch"), pk=check_id)
    accept = request.POST.get("decision") == "accept"
    feedback = request.POST.get("feedback", "").strip() or ("" if accept else "Too many answers disagreed with "
                                                                              "the other workers and known answers.")
    try:
        services.spotcheck_decide(spot_check=check, accept=accept, user=request.user, feedback=feedback)
    except CrowdError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Spot check {check.pk}: {check.decision}.")
    return redirect("aggregation:spot_checks")
