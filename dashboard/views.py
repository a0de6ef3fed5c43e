"""The organizer's dashboard, the jobs it starts, and its plots; the landing page for every role."""

import io

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

# Figure, not pyplot: no global state and no display backend on a server.
from matplotlib.figure import Figure

from aggregation.models import AggregationRun, SpotCheck
from annotation.models import SpanAnnotation
from config.roles import ANNOTATOR, ORGANIZER, RESEARCHER, has_role, role_required
from dashboard.jobs import job_start, progress
from dashboard.models import Job
from datasets.models import DatasetVersion
from filtering.models import Corpus, FilterRun
from filtering.services import filter_run_report
from hits.models import Assignment, Batch
from hits.services import batch_estimate_cost
from qualification.models import QualificationTest


def home(request):
    """Each role lands where its work is."""
    if has_role(request.user, ORGANIZER):
        return redirect("dashboard:index")
    if has_role(request.user, ANNOTATOR):
        return redirect("hits:work_list")
    if has_role(request.user, RESEARCHER):
        return redirect("datasets:versions")
    if request.user.is_authenticated:
        return render(request, "dashboard/no_role.html", status=403)
    return redirect("login")


def _share(done, total):
    return round(100 * done / total) if total else 0


@role_required(ORGANIZER)
def index(request):
    corpora = Corpus.objects.annotate(document_count=Count("documents", distinct=True)).order_by("pk")
    runs = []
    for run in FilterRun.objects.select_related("corpus").order_by("-pk")[:10]:
        report = filter_run_report(run=run)
        rate = 100 * report.candidates / report.sentences if report.sentences else 0
        runs.append({"run": run, "report": report, "rate": rate, "share": _share(report.chunks_done, report.chunks),
                     "rows": sorted(report.rows.items(), key=lambda row: (len(row[0]), row[0]))})
    batches = []
    for batch in Batch.objects.order_by("-pk")[:20]:
        hits = batch.hits.aggregate(total=Count("pk"), published=Count("pk", filter=~Q(provider_hit_id="")))
        states = dict(Assignment.objects.filter(hit__batch=batch).values_list("state").annotate(n=Count("pk")))
        needed = hits["total"] * batch.assignments_per_hit
        submitted = sum(states.get(s, 0) for s in ("submitted", "approved", "rejected"))
        spent, estimate = batch.spent(), batch_estimate_cost(batch=batch)
        batches.append({"batch": batch, "hits": hits, "needed": needed, "submitted": submitted,
                        "approved": states.get("approved", 0), "published_share": _share(hits["published"],
                                                                                        hits["total"]),
                        "submitted_share": _share(submitted, needed),
                        "approved_share": _share(states.get("approved", 0), needed), "spent": spent,
                        "estimate": estimate, "over_budget": batch.budget is not None and spent > batch.budget,
                        "budget_share": _share(spent, batch.budget) if batch.budget else None,
                        "aggregation": batch.aggregations.order_by("-created").first()})
    tests = QualificationTest.objects.annotate(
        attempt_count=Count("attempts", distinct=True),
        granted=Count("grants", filter=Q(grants__revoked__isnull=True), distinct=True)).order_by("name", "-version")
    spans = dict(SpanAnnotation.objects.values_list("state").annotate(n=Count("pk")))
    jobs = [(job, progress(job)) for job in Job.objects.select_related("created_by")[:15]]
    return render(request, "dashboard/index.html", {
        "corpora": corpora, "runs": runs, "batches": batches, "tests": tests,
        "runs_with_plots": AggregationRun.objects.select_related("batch").order_by("-created")[:3],
        "spot_checks": SpotCheck.objects.filter(decision=SpotCheck.Decision.PENDING).count(),
        "spans": spans, "flagged": SpanAnnotation.objects.filter(state="unreviewed", flagged=True).count(),
        "versions": DatasetVersion.objects.annotate(sentence_count=Count("sentences", distinct=True),
                                                    span_count=Count("spans", distinct=True)).order_by("-created"),
        "jobs": [(job, done_total, _share(*done_total) if done_total else None) for job, done_total in jobs],
        "busy": any(job.state in (Job.State.QUEUED, Job.State.RUNNING) for job, _ in jobs)})


@role_required(ORGANIZER)
@require_POST
def start(request):
    kind, target = request.POST.get("kind", ""), request.POST.get("target", "")
    if not target.isdigit():
        messages.error(request, f"Job target {target!r} is not an id.")
        return redirect("dashboard:index")
    try:
        job = job_start(kind=kind, target=int(target), user=request.user)
    except ValueError as error:
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
    run = get_object_or_404(AggregationRun, pk=run_id)
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
    run = get_object_or_404(AggregationRun, pk=run_id)
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
