"""The organizer's spot-check queue: a drawn HIT next to consensus and gold."""

from django.contrib import messages
from django.db.models import Q
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts import access
from accounts.roles import ORGANIZER, REVIEWER, role_required
from aggregation import services
from aggregation.models import SpotCheck
from core.ids import object_id
from hits.models import Batch
from hits.services import CrowdError, worker_sanction

SANCTION_THRESHOLD = 0.7  # the suggestions' bar, for spot-checked accuracy and for skill alike


@role_required(REVIEWER)
def spot_checks(request):
    pending = (access.rows(request.user, SpotCheck.objects.filter(decision=SpotCheck.Decision.PENDING), access.REVIEW)
               .select_related("assignment__worker", "assignment__hit__batch").order_by("pk"))
    batches = list(access.rows(request.user, Batch.objects.filter(
        Q(hits__assignments__spot_check__isnull=False) | Q(aggregations__worker_stats__skill__isnull=False)),
        access.REVIEW).distinct().order_by("-pk"))
    asked = request.GET.get("batch", "")
    batch = object_id(asked)
    if asked and not any(b.pk == batch for b in batches):
        # A batch of a project this person does not review, or none: said, not shown as another batch's.
        messages.warning(request, f"Batch {asked[:20]} has no spot checks you review; showing every batch's.")
        batch = None
    if batch:
        pending = pending.filter(assignment__hit__batch_id=batch)
    checks = list(pending[:20])
    rows = {check.pk: _rows(check) for check in checks}
    # Suggestions for the batch asked for, else the latest one: spot checks and worker skills side by side.
    chosen = next((b for b in batches if b.pk == batch), batches[0] if batches else None)
    suggestions = services.sanction_suggestions(batch=chosen, threshold=SANCTION_THRESHOLD) if chosen else []
    return render(request, "aggregation/spot_checks.html", {
        "checks": [(c, rows[c.pk]) for c in checks], "batches": batches, "chosen": chosen,
        "suggestions": suggestions, "threshold": SANCTION_THRESHOLD})


def _rows(check):
    assignment = check.assignment
    run = assignment.hit.batch.aggregations.order_by("-created").first()
    outcomes = dict(run.outcomes.values_list("item_id", "outcome")) if run else {}
    labels = services.answer_labels(assignment.answers, services.spot_scheme(assignment.hit.batch) or "")
    return [{"item": item, "answer": labels.get(item.pk),
             "consensus": outcomes.get(item.pk, "-"), "gold": item.gold_answer}
            for item in assignment.hit.ordered_items()]


@role_required(REVIEWER)
@require_POST
def spot_check_decide(request, check_id):
    check = access.get_or_404(request.user, SpotCheck.objects.select_related("assignment__hit__batch"),
                              access.REVIEW, pk=check_id)
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


@role_required(ORGANIZER)
@require_POST
def sanction_below(request):
    """One action: block every worker of a batch whose spot-checked accuracy is below the threshold."""
    batch = access.get_or_404(request.user, Batch.objects.all(), access.MANAGE,
                              pk=object_id(request.POST.get("batch")) or 0)
    try:
        threshold = float(request.POST.get("threshold", "0.7"))
    except ValueError:
        threshold = -1
    if not 0 < threshold <= 1:
        messages.error(request, "The threshold is a share between 0 and 1, e.g. 0.7.")
        return redirect("aggregation:spot_checks")
    revoke = request.POST.get("revoke") == "on"
    by_skill = request.POST.get("by_skill") == "on"
    sanctioned = []
    try:
        for row in services.sanction_suggestions(batch=batch, threshold=threshold):
            if not (by_skill or row["spot_checked_low"]):
                continue
            # The spot-check reason comes first when there is one.
            reasons = row["reasons"] if by_skill else row["reasons"][:1]
            worker_sanction(worker=row["worker"], block=True, revoke=revoke,
                            reason=f"{' and '.join(reasons)} below {threshold:.0%}")
            sanctioned.append(str(row["worker"]))
    except CrowdError as error:
        messages.error(request, str(error))
    messages.success(request, f"Blocked {len(sanctioned)} worker(s): {', '.join(sanctioned) or 'none below'}.")
    return redirect("aggregation:spot_checks")
