"""Read models of the project pages, each a fixed number of queries whatever the project holds."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from aggregation.models import AggregationRun, SpotCheck
from annotation.models import SpanAnnotation
from designs.models import DesignBatch
from designs.semeval import SUBTASK2_DESIGN
from filtering.models import Corpus, FilterRun
from filtering.services import FilterReport, filter_run_reports
from hits.models import Assignment, Batch
from hits.selectors import batch_rows
from jobs.models import Job
from jobs.services import job_progress
from projects.models import BatchFigures, Project, Sample
from qualification.models import Grant, QualificationTest, TestItem
from releases.models import DatasetVersion
from releases.selectors import version_rows


@dataclass
class ProjectContext:
    """What a project holds, read once for its page and its steps."""

    project: Project
    corpora: list[dict[str, Any]] = field(default_factory=list)
    runs: list[tuple[FilterRun, FilterReport]] = field(default_factory=list)
    sample: Sample | None = None
    tests: list[dict[str, Any]] = field(default_factory=list)
    batches: list[dict[str, Any]] = field(default_factory=list)
    designs: dict[int, str] = field(default_factory=dict)  # batch id -> the slug of the design it was made from
    aggregations: list[AggregationRun] = field(default_factory=list)
    spans: dict[int, Counter[str]] = field(default_factory=dict)  # span batch id -> annotations by state
    spot_checks: dict[int, int] = field(default_factory=dict)  # batch id -> pending spot checks
    versions: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[tuple[Job, tuple[int, int] | None]] = field(default_factory=list)
    figures: dict[int, BatchFigures] = field(default_factory=dict)  # batch id -> its stored report-step numbers
    # Batches whose figures are missing or older than their work: the page asks a job for them (figures_refresh).
    wanted_figures: list[int] = field(default_factory=list)
    exports: dict[int, Job] = field(default_factory=dict)  # batch id -> its latest finished export job

    def figures_of(self, batch: Batch) -> BatchFigures | None:
        """The batch's stored figures, current or not; noting the batch as wanted when they
        are missing or out of date."""
        found = self.figures.get(batch.pk)
        if (found is None or found.work_version != batch.work_version) and batch.pk not in self.wanted_figures:
            self.wanted_figures.append(batch.pk)
        return found

    def live_jobs(self, kind: str) -> list[Job]:
        return [job for job, _ in self.jobs if job.kind == kind and job.is_live]

    def batches_of(self, kind: str) -> list[dict[str, Any]]:
        """The rows of the batches of a task type, or of a design file (its slug)."""
        return [row for row in self.batches if kind in (row["batch"].task_type, self.designs.get(row["batch"].pk))]

    def completed_runs(self) -> list[FilterRun]:
        return [run for run, report in self.runs if report.chunks and report.chunks_done == report.chunks]

    def latest_aggregation(self, batch: Batch) -> AggregationRun | None:
        return next((run for run in self.aggregations if run.batch_id == batch.pk), None)


def project_jobs(project: Project) -> QuerySet:
    """The jobs that worked on the project or on what it holds (its batches, its versions)."""
    return Job.objects.filter(Q(target=project.pk, kind__startswith="project-")
                              | Q(kind__in=["publish", "sync", "review"], target__in=project.batches.values("pk"))
                              | Q(kind="export", target__in=project.versions.values("pk")))


def project_context(project: Project, *, job_limit: int = 10) -> ProjectContext:
    context = ProjectContext(project)
    # The jobs first: a job that ends while the rest is read then shows as still live and the page keeps
    # following it. Read last, a finished job could sit beside the state from before it ran, and the page
    # would stop following with that stale state on screen.
    jobs = list(project_jobs(project).select_related("created_by")[:job_limit])
    context.jobs = [(job, job_progress(job) if job.is_live else None) for job in jobs]
    context.corpora = [{"corpus": c, "documents": c.document_count, "sentences": c.sentence_count}
                       for c in project.corpora.order_by("pk")]
    runs = list(project.filter_runs.select_related("corpus").order_by("pk"))
    reports = filter_run_reports(runs=runs)
    context.runs = [(run, reports[run.pk]) for run in runs]
    context.sample = project.samples.select_related("run").first()
    tests = list(project.tests.order_by("-version"))
    items = dict(TestItem.objects.filter(test__in=tests).values_list("test").annotate(n=Count("pk")).order_by())
    grants = dict(Grant.objects.filter(test__in=tests, revoked=None).values_list("test").annotate(n=Count("pk"))
                  .order_by())
    context.tests = [{"test": t, "items": items.get(t.pk, 0), "qualified": grants.get(t.pk, 0)} for t in tests]
    batches = list(project.batches.order_by("pk"))
    context.batches = batch_rows(batches)
    context.designs = dict(DesignBatch.objects.filter(batch__in=batches).values_list("batch_id", "version__slug"))
    context.aggregations = list(project.aggregations.order_by("-created", "-pk"))
    span_batches = [pk for pk, slug in context.designs.items() if slug == SUBTASK2_DESIGN]
    spans: dict[int, Counter[str]] = defaultdict(Counter)
    for batch_id, state, flagged, n in (SpanAnnotation.objects.filter(item__batch__in=span_batches)
                                        .values_list("item__batch", "state", "flagged").annotate(n=Count("pk"))
                                        .order_by()):
        spans[batch_id][state] += n
        if flagged and state == SpanAnnotation.State.UNREVIEWED:
            spans[batch_id]["flagged"] += n
    context.spans = dict(spans)
    context.spot_checks = dict(SpotCheck.objects.filter(assignment__hit__batch__in=batches,
                                                        decision=SpotCheck.Decision.PENDING)
                               .values_list("assignment__hit__batch").annotate(n=Count("pk")).order_by())
    mine = set(project.versions.values_list("pk", flat=True))
    context.versions = version_rows(ids=mine)
    context.figures = {found.batch_id: found for found in
                       BatchFigures.objects.filter(batch__in=batches, design=project.design)}
    for job in latest_exports(project):
        context.exports.setdefault(job.options.get("batch"), job)
    return context


def latest_exports(project: Project) -> QuerySet:
    """The project's finished exports, newest first (one zip a batch is kept: projects.jobs.run_export)."""
    return Job.objects.filter(kind="project-export", target=project.pk, state=Job.State.DONE).order_by(
        "-finished", "-pk")[:20]


def project_rows(projects: QuerySet | None = None) -> list[dict[str, Any]]:
    """The projects (every one unless given) with what they hold, for the list of projects. Two queries."""
    batches = Batch.objects.filter(projects=OuterRef("pk")).values("projects").annotate(n=Count("pk")).values("n")
    versions = (DatasetVersion.objects.filter(projects=OuterRef("pk")).values("projects")
                .annotate(n=Count("pk")).values("n"))
    rows = list((Project.objects.all() if projects is None else projects).select_related("created_by")
                .annotate(batch_count=Subquery(batches), version_count=Subquery(versions)))
    return [{"project": p, "batches": p.batch_count or 0, "versions": p.version_count or 0} for p in rows]


def batch_assignments(batch: Batch, *, state: str | None = None, limit: int = 500,
                      offset: int = 0) -> list[Assignment]:
    """A batch's assignments for its review page, with their workers, HITs and spot checks, a page at a time."""
    assignments = Assignment.objects.filter(hit__batch=batch).select_related("worker__user", "hit")
    if state:
        assignments = assignments.filter(state=state)
    return list(assignments.order_by("hit__index", "pk")[offset:offset + limit])


def corpus_choices(project: Project) -> list[Corpus]:
    return list(project.corpora.order_by("pk"))


def test_choices(project: Project) -> list[QualificationTest]:
    return list(project.tests.order_by("-version"))
