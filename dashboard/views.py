"""The organizer's dashboard, the jobs it starts, and its plots."""

import io

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

# Figure, not pyplot: no global state and no display backend on a server.
from matplotlib.figure import Figure

from accounts import access
from accounts.roles import ORGANIZER, role_required
from aggregation.models import AggregationRun
from core.ids import object_id
from dashboard import selectors
from jobs.selectors import may_start
from jobs.services import JobError, job_start


@role_required(ORGANIZER)
def index(request):
    return render(request, "dashboard/index.html", selectors.overview(request.user))


@role_required(ORGANIZER)
def status(request):
    return JsonResponse(selectors.status(request.user))


@role_required(ORGANIZER)
@require_POST
def start(request):
    kind, target = request.POST.get("kind", ""), object_id(request.POST.get("target"))
    if target is None:
        messages.error(request, f"Job target {request.POST.get('target', '')[:40]!r} is not an id.")
        return redirect("dashboard:index")
    if not may_start(request.user, kind, target):
        raise Http404(f"no {kind} target {target} here")
    try:
        job = job_start(kind=kind, target=target, user=request.user)
    except JobError as error:
        messages.error(request, str(error))
    else:
        job.refresh_from_db()
        messages.info(request, f"Job {job.pk} ({job.kind} {job.target}): {job.state}"
                               + (f": {job.message}" if job.message else ""))
    return redirect("dashboard:index")


def _png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return HttpResponse(buffer.getvalue(), content_type="image/png")


@role_required(ORGANIZER)
def plot_workers(request, run_id):
    """Each worker's agreement with the consensus against accuracy on known answers; blocked workers in red."""
    run = access.get_or_404(request.user, AggregationRun.objects.all(), access.MANAGE, pk=run_id)
    stats = list(run.worker_stats.select_related("worker"))
    figure = Figure(figsize=(5, 3.6))
    axes = figure.subplots()
    for blocked, colour, label in ((False, "#2563eb", "active"), (True, "#dc2626", "blocked")):
        chosen = [s for s in stats if s.worker.blocked == blocked and s.consensus_accuracy is not None]
        axes.scatter([s.consensus_accuracy for s in chosen],
                     [s.gold_accuracy if s.gold_accuracy is not None else s.consensus_accuracy for s in chosen],
                     s=[max(10, s.votes / 5) for s in chosen], c=colour, label=f"{label} ({len(chosen)})", alpha=.7)
    axes.set(xlim=(0.3, 1.02), ylim=(0.3, 1.02), xlabel="agreement with consensus",
             ylabel="accuracy on known answers", title=f"Workers of aggregation {run.pk}")
    axes.legend(loc="lower right")
    axes.grid(alpha=.3)
    return _png(figure)


@role_required(ORGANIZER)
def plot_agreement(request, run_id):
    """Krippendorff's alpha overall and per domain, with 95% intervals."""
    run = access.get_or_404(request.user, AggregationRun.objects.all(), access.MANAGE, pk=run_id)
    rows = [("all", run.alpha, run.alpha_low, run.alpha_high)] + [
        (name, f["alpha"], f["low"], f["high"]) for name, f in run.summary.get("by_domain", {}).items()
        if f.get("alpha") is not None]
    rows = [row for row in rows if row[1] is not None]
    figure = Figure(figsize=(5, 0.6 + 0.45 * max(1, len(rows))))
    axes = figure.subplots()
    for y, (_, alpha, low, high) in enumerate(rows):
        axes.errorbar(alpha, y, xerr=[[alpha - low], [high - alpha]], fmt="o", color="#2563eb", capsize=4)
    axes.set_yticks(range(len(rows)), [row[0] for row in rows])
    axes.set(xlim=(-0.2, 1), xlabel="Krippendorff's alpha (nominal)", title=f"Agreement, aggregation {run.pk}")
    axes.axvline(0, color="#999", lw=.8)
    axes.grid(axis="x", alpha=.3)
    return _png(figure)
