"""The organizer's overview, read with a fixed number of queries whatever the size of the data."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from accounts import access
from aggregation.maths import votes_rule
from aggregation.models import AggregationRun, SpotCheck
from aggregation.services import span_agreement_shown
from annotation.models import SpanAnnotation
from designs.models import batch_designs
from designs.task_type import label_rule
from filtering.models import Corpus, FilterRun
from filtering.services import filter_run_reports
from hits.models import Batch
from hits.selectors import batch_rows
from hits.services.adaptive import adaptive_savings
from jobs.models import Job
from jobs.selectors import jobs_visible
from jobs.services import job_progress, jobs_reap_stale
from projects.models import Project
from projects.selectors import project_rows
from qualification.models import Attempt, Grant, QualificationTest
from releases.models import DatasetVersion
from releases.selectors import version_rows

# A summary that fits a phone: the latest few of each, with links to where the rest are.
RUNS, BATCHES, JOBS, PLOTS = 5, 8, 6, 1


def _share(done: int, total: int) -> int:
    return round(100 * done / total) if total else 0


def overview(user: Any) -> dict[str, Any]:
    """What the organizer runs: their projects' corpora, filter runs, batches, tests, jobs and versions (and what
    belongs to no project, for the site's organizers: accounts.access)."""
    jobs_reap_stale()

    def mine(queryset: QuerySet) -> QuerySet:
        return access.rows(user, queryset, access.MANAGE)

    corpora = mine(Corpus.objects.all()).order_by("pk")
    runs = list(mine(FilterRun.objects.all()).select_related("corpus").order_by("-pk")[:RUNS])
    reports = filter_run_reports(runs=runs)
    run_rows = []
    for run in runs:
        report = reports[run.pk]
        run_rows.append({"run": run, "report": report,
                         "rate": 100 * report.candidates / report.sentences if report.sentences else 0,
                         "share": _share(report.chunks_done, report.chunks),
                         "rows": sorted(report.rows.items(), key=lambda row: (len(row[0]), row[0]))})
    managed = mine(Batch.objects.all())
    batches = list(managed.order_by("-pk")[:BATCHES])
    latest = AggregationRun.objects.filter(batch=OuterRef("pk")).order_by("-created", "-pk")
    runs_of = dict(Batch.objects.filter(pk__in=[b.pk for b in batches])
                   .annotate(run=Subquery(latest.values("pk")[:1])).values_list("pk", "run"))
    aggregations = AggregationRun.objects.in_bulk([pk for pk in runs_of.values() if pk])
    rows = batch_rows(batches)
    designs = batch_designs([batch.pk for batch in batches])
    for row in rows:
        design, stage = designs.get(row["batch"].pk, (None, ""))
        row["aggregation"] = aggregations.get(runs_of.get(row["batch"].pk))
        row["span_agreement"] = span_agreement_shown(row["batch"], list(design.components) if design else [])
        row["aggregated"] = design is not None and votes_rule(label_rule(design, stage))
        # What the batch asks, as its workers read it (every batch's task type is "design" now).
        row["kind"] = design.title if design else row["batch"].task_type
        row["adaptive"] = adaptive_savings(row["batch"]) if row["batch"].adaptive else None
    attempts = Attempt.objects.filter(test=OuterRef("pk")).values("test").annotate(n=Count("pk")).values("n")
    granted = (Grant.objects.filter(test=OuterRef("pk"), revoked__isnull=True).values("test")
               .annotate(n=Count("pk")).values("n"))
    tests = mine(QualificationTest.objects.all()).annotate(
        attempt_count=Subquery(attempts), granted=Subquery(granted)).order_by("name", "-version")
    jobs = list(jobs_visible(user).select_related("created_by")[:JOBS])
    job_rows = []
    for job in jobs:
        done_total = job_progress(job) if job.is_live else None
        job_rows.append((job, done_total, _share(*done_total) if done_total else None))
    annotations = access.rows(user, SpanAnnotation.objects.all(), access.REVIEW)
    spans = dict(annotations.values_list("state").annotate(n=Count("pk")).order_by())
    versions = mine(DatasetVersion.objects.all())
    return {
        "corpora": corpora, "runs": run_rows, "batches": rows, "tests": tests,
        "runs_with_plots": mine(AggregationRun.objects.all()).select_related("batch").order_by("-created")[:PLOTS],
        "spot_checks": access.rows(user, SpotCheck.objects.filter(decision=SpotCheck.Decision.PENDING),
                                   access.REVIEW).count(),
        "spans": spans,
        "flagged": annotations.filter(Q(state="unreviewed") & Q(flagged=True)).count(),
        "versions": version_rows(ids=versions.values_list("pk", flat=True)), "jobs": job_rows,
        "busy": any(job.is_live for job in jobs),
        "projects": project_rows(mine(Project.objects.all())), "limits": {"runs": RUNS, "batches": BATCHES,
                                                                         "jobs": JOBS},
        "batch_total": managed.count()}


def status(user: Any) -> dict[str, Any]:
    """What the dashboard's script polls while a job runs."""
    visible = jobs_visible(user)
    live = list(visible.filter(state__in=Job.LIVE_STATES).values_list("pk", "state"))
    recent = list(visible.values_list("pk", "state")[:JOBS])
    jobs = [{"id": pk, "state": state, "kind": "", "progress": None} for pk, state in live]
    return {"busy": bool(live), "jobs": jobs, "signature": hash(repr(recent))}
