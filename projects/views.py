"""The organizer's workspace: a project's steps, and a form for each of them.

Every form is checked before anything starts; whatever takes longer than a
moment runs as a job (jobs app) and the page shows its progress.
"""

from __future__ import annotations

import functools
import io
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_POST
from matplotlib.figure import Figure

from accounts import access
from accounts.access import MANAGE, READ
from accounts.roles import ORGANIZER, role_required
from aggregation.models import AggregationRun
from aggregation.report import model_beside_said
from aggregation.selectors import outcome_counts, positive_meaning
from aggregation.services import batch_vote_rule, runs_compare, spot_checked, spotcheck_draw
from annotation.models import SpanAnnotation
from core.errors import CrowdsetError
from core.ids import LARGEST_ID, is_whole, object_id
from core.words import counted
from designs.model_votes import model_votes_said, model_votes_start, model_votes_stop
from designs.models import DesignBatch, ModelRun, OutsideAnswer
from designs.suggestions import suggestions_start, suggestions_stop
from designs.task_type import writing_evidence
from hits.extensions import other_spending
from hits.models import Assignment, Batch, Payment, Withdrawal
from hits.providers import get_provider
from hits.providers.base import money
from hits.selectors import batch_rows
from hits.services import CrowdError, batch_cost, check_requirements, cost_estimate, hit_count, worker_filters
from hits.services.adaptive import adaptive_savings
from hits.task_types import get_task_type
from hits.tasks import bonus_request
from jobs.models import Job
from jobs.services import JobError, job_cancel, job_progress, job_start
from projects import forms, selectors, services
from projects.access import project_view
from projects.designs import DESIGNS, project_steps
from projects.models import Project, Upload
from projects.people import crowd_filters, who_may_work
from qualification.models import TestItem
from qualification.services import test_item_update
from releases.models import DatasetVersion
from releases.selectors import version_rows
from releases.services import word_count_figure


def _start(request: HttpRequest, project: Project, kind: str, options: dict[str, Any] | None = None,
           target: int | None = None) -> Job | None:
    """Start a job and say so; a job of the same kind already under way is reported, not doubled."""
    target = project.pk if target is None else target
    try:
        job = job_start(kind=kind, target=target, options=options or {}, user=request.user)
    except (JobError, CrowdsetError) as error:
        messages.error(request, str(error))
        return None
    if options is not None and job.options != options:
        messages.warning(request, f"Job {job.pk} ({job.kind}) is still {job.state}; start this again when it ends.")
    else:
        messages.info(request, f"Job {job.pk} started: {job.kind.replace('project-', '')}. This page shows its "
                               f"progress.")
    return job


# --- projects ---------------------------------------------------------------------------------

@role_required(ORGANIZER)
def project_list(request: HttpRequest) -> HttpResponse:
    form = forms.ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            project = services.project_create(name=data["name"], slug=data["slug"], design=data["design"],
                                              description=data["description"], user=request.user,
                                              budget=data["budget"])
        except CrowdsetError as error:
            form.add_error(None, str(error))
        else:
            return redirect("projects:detail", project.slug)
    runs = access.rows(request.user, Project.objects.all(), MANAGE)
    return render(request, "projects/list.html", {"rows": selectors.project_rows(runs), "form": form,
                                                  "designs": DESIGNS.items()})


@project_view(MANAGE)
def project_detail(request: HttpRequest, project: Project) -> HttpResponse:
    context = selectors.project_context(project)
    steps = project_steps(context)
    if figures_refresh(request, project, context):
        context = selectors.project_context(project)  # the job it started, for the page to follow
        steps = project_steps(context)
    return render(request, "projects/detail.html", {
        "project": project, "design": DESIGNS.get(project.design), "steps": steps,
        "who": who_may_work(project),
        "jobs": context.jobs, "busy": any(job.is_live for job, _ in context.jobs)})


def figures_refresh(request: HttpRequest, project: Project, context: selectors.ProjectContext) -> bool:
    """Ask a job for the figures a step showed missing or out of date (ProjectContext.wanted_figures), unless one
    is under way or ended less than FIGURES_PAUSE_SECONDS ago (settings): while answers keep coming, the figures
    follow them at that pace, and a page view never computes them. True when a job was started."""
    if not context.wanted_figures or DESIGNS.get(project.design).figures is None:
        return False
    recent = timezone.now() - timedelta(seconds=settings.FIGURES_PAUSE_SECONDS)
    if Job.objects.filter(kind="project-figures", target=project.pk).filter(
            Q(state__in=Job.LIVE_STATES) | Q(finished__gt=recent)).exists():
        return False
    try:
        job_start(kind="project-figures", target=project.pk, options={"batch": context.wanted_figures[-1]},
                  user=request.user)
    except (JobError, CrowdsetError):
        return False
    return True


@project_view(MANAGE)
def project_status(request: HttpRequest, project: Project) -> JsonResponse:
    """What the project page's script polls while work runs: it reloads the page when this changes."""
    context = selectors.project_context(project)
    steps_shown = project_steps(context)
    if figures_refresh(request, project, context):
        context = selectors.project_context(project)
        steps_shown = project_steps(context)
    jobs = [{"id": job.pk, "kind": job.kind, "state": job.state, "message": job.message,
             "progress": list(progress) if progress else None} for job, progress in context.jobs]
    steps = [(step.key, step.state, step.summary) for step in steps_shown]
    return JsonResponse({"busy": any(job.is_live for job, _ in context.jobs), "jobs": jobs,
                         "signature": hash(repr((steps, [(j["id"], j["state"]) for j in jobs])))})


@project_view(MANAGE)
@require_POST
def job_cancel_view(request: HttpRequest, project: Project, job_id: int) -> HttpResponse:
    job = get_object_or_404(selectors.project_jobs(project), pk=job_id)
    try:
        job_cancel(job=job)
    except CrowdsetError as error:
        messages.error(request, str(error))
    else:
        messages.info(request, f"Job {job.pk}: {'cancelled' if job.state == 'cancelled' else 'asked to stop'}.")
    return redirect("projects:detail", project.slug)


# --- corpus ---------------------------------------------------------------------------------------

@project_view(MANAGE)
def upload(request: HttpRequest, project: Project) -> HttpResponse:
    form = forms.UploadForm(request.POST or None, request.FILES or None, project=project)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        uploaded = data["file"]
        if data["domains"] != project.domains:
            project.domains = data["domains"]
            project.save(update_fields=["domains"])
        try:
            stored = services.upload_store(project=project, source=uploaded, name=uploaded.name,
                                           kind=Upload.Kind.CORPUS, fmt=data["format"], user=request.user)
        except CrowdsetError as error:
            form.add_error("file", str(error))
        else:
            options = {"upload": stored.pk, "domain": data["domain"],
                       "corpus": data["corpus"] or services.default_corpus_name(project, uploaded.name)}
            if stored.format == "csv":
                request.session[f"upload-{stored.pk}"] = options
                return redirect("projects:upload_columns", project.slug, stored.pk)
            _start(request, project, "project-ingest", {**options, "records": services.upload_records(stored)})
            return redirect("projects:upload", project.slug)
    ingests = [(job, job_progress(job) if job.is_live else None)
               for job in Job.objects.filter(kind="project-ingest", target=project.pk)[:10]]
    refused = next((job for job, _ in ingests if not job.is_live), None)
    return render(request, "projects/upload.html", {"project": project, "form": form, "ingests": ingests,
                                                    "busy": any(job.is_live for job, _ in ingests),
                                                    "refused": refused if refused and refused.result.get("error_count")
                                                    else None})


@project_view(MANAGE)
def refused_download(request: HttpRequest, project: Project, job_id: int) -> HttpResponse:
    """The documents an ingest refused, in the uploaded file's format, to fix and upload again."""
    job = get_object_or_404(Job, pk=job_id, kind="project-ingest", target=project.pk)
    stored = get_object_or_404(Upload, pk=job.options.get("upload"), project=project)
    lines = job.result.get("refused_lines") or []
    if not lines:
        raise Http404("this ingest refused no line of a JSONL or CSV file")
    stem = Path(stored.name).stem or "corpus"
    response = StreamingHttpResponse(services.refused_rows(stored, lines),
                                     content_type="text/csv" if stored.format == "csv" else "application/x-ndjson")
    response["Content-Disposition"] = (f'attachment; filename="{slugify(stem) or "corpus"}-refused.'
                                       f'{"csv" if stored.format == "csv" else "jsonl"}"')
    return response


@project_view(MANAGE)
def upload_columns(request: HttpRequest, project: Project, upload_id: int) -> HttpResponse:
    stored = get_object_or_404(Upload, pk=upload_id, project=project, format="csv")
    options = request.session.get(f"upload-{stored.pk}") or {"upload": stored.pk, "corpus": f"{project.slug}-corpus",
                                                              "domain": ""}
    form = forms.CsvColumnsForm(request.POST or None, upload=stored)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if not options.get("domain") and "domain" not in stored.columns:
            form.add_error(None, "the CSV has no domain column; go back and choose a domain for its documents")
        else:
            _start(request, project, "project-ingest", {**options, "text_column": data["text_column"],
                                                         "id_column": data["id_column"],
                                                         "records": services.upload_records(stored)})
            return redirect("projects:upload", project.slug)
    return render(request, "projects/columns.html", {"project": project, "upload": stored, "form": form})


@project_view(MANAGE)
def filter_view(request: HttpRequest, project: Project) -> HttpResponse:
    corpora = selectors.corpus_choices(project)
    if not corpora:
        messages.warning(request, "Upload a corpus first.")
        return redirect("projects:upload", project.slug)
    form = forms.FilterForm(request.POST or None, corpora=corpora)
    if request.method == "POST" and form.is_valid():
        _start(request, project, "project-filter", {"corpus": int(form.cleaned_data["corpus"]),
                                                     "profile": form.cleaned_data["profile"]})
        return redirect("projects:detail", project.slug)
    return render(request, "projects/form.html", {"project": project, "form": form, "title": "Run the filter",
                                                  "submit": "Run the filter", "intro": (
        "The paper's Table 5 token patterns and Appendix B POS forms pick the sentences likely to be "
        "counterfactual. The run goes chunk by chunk; its progress shows on the project page.")})


@project_view(MANAGE)
def sample(request: HttpRequest, project: Project) -> HttpResponse:
    """GET with size and seed previews the domain balance; POST keeps the sample."""
    runs = selectors.project_context(project).completed_runs()
    if not runs:
        messages.warning(request, "Run the filter to the end first.")
        return redirect("projects:detail", project.slug)
    data = request.POST if request.method == "POST" else (request.GET if "size" in request.GET else None)
    form = forms.SampleForm(data, runs=runs, initial={"run": runs[-1].pk})
    preview = None
    if data is not None and form.is_valid():
        run = next(run for run in runs if run.pk == int(form.cleaned_data["run"]))
        try:
            if request.method == "POST":
                services.sample_create(project=project, run=run, size=form.cleaned_data["size"],
                                       seed=form.cleaned_data["seed"])
                messages.success(request, "Sample kept.")
                return redirect("projects:detail", project.slug)
            _, preview = services.sample_preview(run=run, size=form.cleaned_data["size"],
                                                 seed=form.cleaned_data["seed"])
        except CrowdsetError as error:
            form.add_error("size", str(error))
    return render(request, "projects/sample.html", {"project": project, "form": form, "preview": preview})


# --- the screening test ----------------------------------------------------------------------------

@project_view(MANAGE)
def qualification(request: HttpRequest, project: Project) -> HttpResponse:
    released = list(project.uploads.filter(kind=Upload.Kind.RELEASED))
    form = forms.QualificationForm(request.POST or None, request.FILES or None, uploads=released)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        stored = None
        try:
            if data["source"]:
                stored = services.upload_store(project=project, source=data["source"], name=data["source"].name,
                                               kind=Upload.Kind.RELEASED, fmt="csv", user=request.user)
            else:
                stored = project.uploads.get(pk=data["upload"], kind=Upload.Kind.RELEASED)
        except CrowdsetError as error:
            form.add_error("source", str(error))
        except Upload.DoesNotExist:
            form.add_error("upload", "pick a file uploaded to this project")
        if stored is not None and not form.errors:
            missing = [c for c in ("sentenceID", "gold_label", "sentence") if c not in stored.columns]
            if missing:
                form.add_error("source", f"{stored.name}: missing column(s) {', '.join(missing)}; the released "
                                         f"file has sentenceID,gold_label,sentence")
            else:
                _start(request, project, "project-qualification", {
                    "upload": stored.pk, "name": f"{project.slug}-screening", "seed": data["seed"],
                    "threshold": data["threshold"], "duration": data["duration"] * 60,
                    "retake_delay": data["retake_delay"] * 3600})
                return redirect("projects:qualification", project.slug)
    busy = Job.objects.filter(kind="project-qualification", target=project.pk, state__in=Job.LIVE_STATES).exists()
    tests = selectors.test_choices(project)  # after the job: see selectors.project_context
    test = tests[0] if tests else None
    return render(request, "projects/qualification.html", {
        "project": project, "form": form, "test": test, "items": test.items.all() if test else [], "busy": busy})


@project_view(MANAGE)
def test_item(request: HttpRequest, project: Project, item_id: int) -> HttpResponse:
    item = get_object_or_404(TestItem.objects.select_related("test"), pk=item_id, test__projects=project)
    form = forms.TestItemForm(request.POST or None, initial={"text": item.text, "answer": item.answer,
                                                                   "why": item.why})
    if request.method == "POST" and form.is_valid():
        try:
            test_item_update(item=item, text=form.cleaned_data["text"], answer=form.cleaned_data["answer"],
                             why=form.cleaned_data["why"])
        except CrowdsetError as error:
            form.add_error("text", str(error))
        else:
            messages.success(request, f"Item {item.position + 1} saved.")
            return redirect(reverse("projects:qualification", args=[project.slug]) + f"#item-{item.pk}")
    return render(request, "projects/form.html", {"project": project, "form": form,
                                                  "title": f"Item {item.position + 1} of {item.test}",
                                                  "submit": "Save the item"})


# --- batches -----------------------------------------------------------------------------------------

@project_view(MANAGE)
def batch_new(request: HttpRequest, project: Project) -> HttpResponse:
    chosen = project.samples.first()
    if chosen is None:
        messages.warning(request, "Sample the candidates first.")
        return redirect("projects:detail", project.slug)
    released = list(project.uploads.filter(kind=Upload.Kind.RELEASED))
    form = forms.LabelingBatchForm(request.POST or None, tests=selectors.test_choices(project),
                                   items=len(chosen.candidate_ids), uploads=released,
                                   initial={"name": f"{project.name}: labeling", "gold_upload":
                                            released[0].pk if released else ""})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        _start(request, project, "project-batch", {
            "sample": chosen.pk, "name": data["name"], "provider": data["provider"],
            "items_per_hit": data["items_per_hit"], "assignments_per_hit": data["assignments_per_hit"],
            "reward": str(data["reward"]), "budget": str(data["budget"]) if data["budget"] is not None else None,
            "qualification": data["qualification"], "requirements": form.requirements(),
            "gold_upload": int(data["gold_upload"] or 0) or None,
            "gold_count": data["gold_count"] if data["gold_upload"] else 0,
            "gold_rate": data["gold_rate"] if data["gold_upload"] else 0.0, "seed": data["seed"],
            "adaptive": data["adaptive"]})
        return redirect("projects:detail", project.slug)
    ready = form.is_bound and not form.errors
    return render(request, "projects/batch_new.html", {
        "project": project, "form": form, "items": len(chosen.candidate_ids),
        "estimate": form.estimate() if ready else None,
        "filters": crowd_filters(project, form.cleaned_data["provider"], form.filters()) if ready else None})


@project_view(MANAGE)
def estimate(request: HttpRequest, project: Project) -> JsonResponse:
    """A batch form's live cost estimate (the labeling batch's; ?form=span-batch, the span batch's): HITs, assignments,
    rewards, provider fees, total, and who may work."""
    # The span batch's form has bounds of its own (at most 5 annotators a sentence) and no known-answer items.
    fields = (forms.SpanBatchForm(tests=[], items=0).fields if request.GET.get("form") == "span-batch"
              else forms.LabelingBatchForm.base_fields)

    def given(name: str, default: str) -> Any:
        # Each number as the batch form reads it, with its bounds and words: the estimate never shows what the
        # form would refuse (a reward of "nan" was a total of NaN, "-1" a negative one).
        if name not in fields:
            return 0
        try:
            return fields[name].clean(request.GET.get(name) or default)
        except ValidationError as error:
            raise ValueError(f"{fields[name].label}: {' '.join(error.messages)}") from None

    try:
        items = request.GET.get("items", "0")
        if not is_whole(items, low=0, high=LARGEST_ID):
            raise ValueError(f"items {items[:20]!r} is not a count")
        hits = hit_count(items=int(items), items_per_hit=given("items_per_hit", "25"),
                         gold_items=given("gold_count", "0"), gold_rate=given("gold_rate", "0"))
        provider = request.GET.get("provider", "inhouse")
        masters = request.GET.get("masters") in ("on", "true", "1")
        found = cost_estimate(provider=provider, hits=hits, assignments_per_hit=given("assignments_per_hit", "5"),
                              reward=given("reward", "0"), masters=masters)
        requirements = check_requirements({
            **{name: int(request.GET[name]) for name in ("min_approval_rate", "min_approved_hits")
               if request.GET.get(name)}, "masters": masters})
        if request.GET.get("qualification"):
            requirements["qualification"] = request.GET["qualification"]
        filters = crowd_filters(project, provider, worker_filters(provider=provider, requirements=requirements))
    except (ValueError, ArithmeticError, LookupError, CrowdError) as error:
        return JsonResponse({"error": f"cannot estimate: {error}"}, status=400)
    return JsonResponse({"hits": found.hits, "assignments": found.assignments, "rewards": str(found.rewards),
                         "fees": str(found.fees), "total": str(found.total), "filters": filters})


def _batch(project: Project, batch_id: int) -> Batch:
    return get_object_or_404(Batch, pk=batch_id, projects=project)


REVIEW_PAGE = 100  # submitted assignments listed for review on one page


@project_view(MANAGE)
def batch_detail(request: HttpRequest, project: Project, batch_id: int) -> HttpResponse:
    # The jobs before the batch: see selectors.project_context.
    jobs = [(job, job_progress(job) if job.is_live else None)
            for job in Job.objects.filter(kind__in=["publish", "sync", "review"], target=batch_id)[:8]]
    batch = _batch(project, batch_id)
    (row,) = batch_rows([batch])
    # The work waiting for review a page at a time, whatever the batch's size.
    waiting = row["states"].get(Assignment.State.SUBMITTED, 0)
    pages = max(1, -(-waiting // REVIEW_PAGE))
    page = min(object_id(request.GET.get("page")) or 1, pages)
    submitted = selectors.batch_assignments(batch, state=Assignment.State.SUBMITTED, limit=REVIEW_PAGE,
                                            offset=(page - 1) * REVIEW_PAGE)
    withdrawn = list(Withdrawal.objects.filter(assignment__hit__batch=batch).select_related(
        "assignment__worker__user", "assignment__hit").order_by("-when")[:100])
    review = forms.ReviewForm(choices=[(a.pk, str(a.pk)) for a in submitted])
    names = OutsideAnswer.model_names(batch)  # the models that answered it, for the aggregation and models' forms
    aggregate_form = forms.AggregateForm(models=names)
    try:
        needed = batch_vote_rule(batch).rules.votes_required  # its design read once for both
    except CrowdError:
        needed = None
    return render(request, "projects/batch.html", {
        "project": project, "batch": batch, "row": row, "submitted": submitted, "review": review,
        "waiting": waiting, "page": page, "pages": pages, "first": (page - 1) * REVIEW_PAGE + 1,
        "last": (page - 1) * REVIEW_PAGE + len(submitted),
        "withdrawn": withdrawn, "listing": get_task_type(batch.task_type).listings([batch]).get(
            batch.pk, {"title": batch.task_type, "noun": "item"}),
        "spot_form": forms.SpotCheckForm(), "aggregate_form": aggregate_form, "jobs": jobs,
        "bonus_form": forms.BonusForm(),
        "busy": any(job.is_live for job, _ in jobs), "aggregations": batch.aggregations.order_by("-created")[:5],
        "aggregated": needed is not None, "few_votes": needed is not None and batch.assignments_per_hit < needed,
        "adaptive": adaptive_savings(batch) if batch.adaptive else None,
        "models_spent": other_spending([batch.pk]),
        **_models_context(request, batch, names),
        "filters": crowd_filters(project, batch.provider, worker_filters(provider=batch.provider,
                                                                        requirements=batch.requirements)),
        "spot_checked": spot_checked(batch), "writing_evidence": writing_evidence(batch),
        "rejection_categories": forms.REJECTION_CATEGORIES})


def _models_context(request: HttpRequest, batch: Batch, names: list[str]) -> dict[str, Any]:
    """The batch page's language models: the runs, the form to ask one (as last estimated), the suggestions."""
    link = DesignBatch.objects.filter(batch=batch).first()
    if link is None:
        return {}
    kept = request.session.get(f"model-form-{batch.pk}") or {}
    return {"design_batch": True, "model_runs": list(ModelRun.objects.filter(batch=batch)[:10]),
            "model_form": forms.ModelRunForm(initial=kept or None, prefix="ask"),
            "suggest_form": forms.SuggestForm(models=names, prefix="suggest") if names else None,
            "suggesting": link.suggest,
            "votes_form": forms.ModelVotesForm(models=names, prefix="votes") if names and batch.adaptive else None,
            "model_vote": model_votes_said(link.model_vote) if link.model_vote else ""}


@project_view(MANAGE)
def publish(request: HttpRequest, project: Project, batch_id: int) -> HttpResponse:
    """Publishing spends money: the page shows the cost, the fees, the budget left and the provider's
    balance, and publishes only when the organizer confirms that figure."""
    batch = _batch(project, batch_id)
    found = batch_cost(batch=batch)
    spent = batch.spent()
    try:
        balance = get_provider(batch.provider).available_balance()
    except CrowdsetError as error:
        balance, balance_error = None, str(error)
    else:
        balance_error = ""
    form = forms.PublishForm(request.POST or None, initial={"total": found.total})
    if request.method == "POST" and form.is_valid():
        if form.cleaned_data["total"] != found.total:
            form.add_error("confirm", f"the cost changed to {found.total} since the page was shown; confirm again")
        elif batch.budget is not None and found.total > batch.budget:
            form.add_error("confirm", f"the cost {found.total} is over the budget {batch.budget}; this batch cannot "
                                      f"be published as it is")
        elif balance is not None and balance < found.total:
            form.add_error("confirm", f"the {batch.provider} account holds {balance}, less than {found.total}; add "
                                      f"funds first")
        else:
            _start(request, project, "publish", target=batch.pk)
            return redirect("projects:batch", project.slug, batch.pk)
    return render(request, "projects/publish.html", {
        "project": project, "batch": batch, "cost": found, "spent": spent, "balance": balance,
        "balance_error": balance_error, "form": form,
        "budget_left": batch.budget - spent if batch.budget is not None else None,
        "over_budget": batch.budget is not None and found.total > batch.budget})


@project_view(MANAGE)
@require_POST
def batch_action(request: HttpRequest, project: Project, batch_id: int, action: str) -> HttpResponse:
    batch = _batch(project, batch_id)
    target = reverse("projects:batch", args=[project.slug, batch.pk])
    if action == "sync":
        _start(request, project, "sync", target=batch.pk)
    elif action == "review":
        # The ticked assignments that are this batch's and still wait for review: what may be chosen.
        ticked = [pk for pk in map(object_id, request.POST.getlist("assignments")) if pk]
        waiting = Assignment.objects.filter(hit__batch=batch, state=Assignment.State.SUBMITTED, pk__in=ticked)
        form = forms.ReviewForm(request.POST, choices=[(pk, str(pk)) for pk in waiting.values_list("pk", flat=True)],
                                provider=batch.provider)
        if form.is_valid():
            data = form.cleaned_data
            _start(request, project, "review", {"assignments": sorted(int(pk) for pk in data["assignments"]),
                                                 "approve": data["decision"] == "approve",
                                                 "feedback": data["feedback"], "category": data["category"]},
                   target=batch.pk)
        else:
            for field, errors in form.errors.items():
                messages.error(request, f"{field if field != '__all__' else 'review'}: {' '.join(errors)}")
        target += "#review"
    elif action == "spot-checks":
        form = forms.SpotCheckForm(request.POST)
        if form.is_valid():
            try:
                drawn = spotcheck_draw(batch=batch, rate=form.cleaned_data["rate"], seed=form.cleaned_data["seed"],
                                       by_skill=form.cleaned_data["by_skill"])
            except CrowdsetError as error:
                messages.error(request, str(error))
            else:
                messages.success(request, f"{len(drawn)} HITs drawn for spot checks.")
        else:
            messages.error(request, "rate: " + " ".join(form.errors.get("rate", ["a share between 0.01 and 1"])))
        target += "#spot-checks"
    elif action == "aggregate":
        form = forms.AggregateForm(request.POST, models=OutsideAnswer.model_names(batch))
        if form.is_valid():
            _start(request, project, "project-aggregate", {"batch": batch.pk, **form.cleaned_data})
            return redirect("projects:detail", project.slug)
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
        target += "#aggregate"
    elif action in ("ask-model", "suggest", "model-votes"):
        return _models(request, project, batch, action)
    elif action == "bonus":
        # No anchor: the page opens at its top, where the outcome (a refusal names the amounts) is shown.
        _bonus(request, batch, forms.BonusForm(request.POST))
    else:
        raise Http404(f"no batch action {action!r}")
    return redirect(target)


def _models(request: HttpRequest, project: Project, batch: Batch, action: str) -> HttpResponse:
    """A language model asked the batch's items (a project job: its progress and any error on the project page), or
    its answers shown to people as suggestions or counted as one more voter (started or stopped)."""
    target = reverse("projects:batch", args=[project.slug, batch.pk]) + "#models"
    if action != "ask-model":
        _model_setting(request, batch, action)
        return redirect(target)
    form = forms.ModelRunForm(request.POST, prefix="ask")
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"ask a model: {field}: {' '.join(errors)}")
        return redirect(target)
    data = form.cleaned_data
    options = {"batch": batch.pk, "url": data["url"], "model": data["model"], "key_env": data["key_env"],
               "price_in": str(data["price_in"]), "price_out": str(data["price_out"]),
               "budget": str(data["budget"]) if data["budget"] is not None else "", "concurrency": 4,
               "limit": data["limit"], "samples": data["samples"], "position_check": data["position_check"]}
    # The form as it was last sent comes back filled in (the key's variable's name, never a key).
    request.session[f"model-form-{batch.pk}"] = {**options, "budget": options["budget"] or None}
    if request.POST.get("estimate"):
        from designs.model_runs import Endpoint, run_estimate

        plan = run_estimate(batch, Endpoint(url=data["url"], model=data["model"], price_in=data["price_in"],
                                            price_out=data["price_out"]),
                            limit=data["limit"], samples=data["samples"], position_check=data["position_check"])
        messages.info(request, f"{plan['annotator']}: {plan['items']} item{'s' if plan['items'] != 1 else ''} to "
                               f"ask ({plan['answered_before']} answered before); about {plan['tokens_in']} tokens in, "
                               f"at most {plan['most_tokens_out']} out; likely {plan['cost']:.4f}, at most "
                               f"{plan['most_cost']:.4f} at these prices.")
        return redirect(target)
    if _start(request, project, "project-model", options) is not None:
        return redirect("projects:detail", project.slug)
    return redirect(target)


def _model_setting(request: HttpRequest, batch: Batch, action: str) -> None:
    """A model's answers shown to people as suggestions ("suggest") or counted as one more voter by adaptive
    redundancy ("model-votes"), from now on, or no longer."""
    names = OutsideAnswer.model_names(batch)
    if action == "suggest":
        what, start, stop = "suggestions", suggestions_start, suggestions_stop
        form = forms.SuggestForm(request.POST, models=names, prefix="suggest")
    else:
        what, start, stop = "the model's vote", model_votes_start, model_votes_stop
        form = forms.ModelVotesForm(request.POST, models=names, prefix="votes")
    if request.POST.get("stop"):
        call = functools.partial(stop, batch=batch)
    elif form.is_valid():
        options = dict(form.cleaned_data)
        call = functools.partial(start, batch=batch, annotator=options.pop("model"), **options)
    else:
        for field, errors in form.errors.items():
            messages.error(request, f"{what}: {field}: {' '.join(errors)}")
        return
    try:
        found = call()
    except CrowdsetError as error:
        messages.error(request, f"{what}: {error}")
    else:
        if request.POST.get("stop"):
            messages.success(request, "Suggestions stopped for work claimed from now on." if action == "suggest" else
                             "No model's vote counts from now on.")
        elif action == "suggest":
            messages.success(request, f"{found['annotator']}'s answers are shown to people from now on; "
                                      f"{found['holdout']:.0%} of (annotator, item) pairs see none.")
        else:
            messages.success(request, f"From now on {model_votes_said(found)}.")


def _bonus(request: HttpRequest, batch: Batch, form: forms.BonusForm) -> None:
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"bonus: {field}: {' '.join(errors)}")
        return
    data = form.cleaned_data
    assignment = Assignment.objects.filter(pk=data["assignment"], hit__batch=batch).select_related("worker").first()
    if assignment is None:
        messages.error(request, f"bonus: assignment {data['assignment']} is not one of batch {batch.pk}'s")
        return
    try:
        payment = bonus_request(assignment=assignment, amount=data["amount"], reason=data["reason"])
    except CrowdsetError as error:
        messages.error(request, f"bonus refused: {error}")
        return
    if payment.state == Payment.State.CONFIRMED:
        messages.success(request, f"Bonus of {money(payment.amount)} paid to {assignment.worker} (payment "
                                  f"{payment.pk}).")
    elif payment.error:
        messages.error(request, f"bonus {payment.pk} is in the ledger, not paid yet: {payment.error}")
    else:
        messages.success(request, f"Bonus of {money(payment.amount)} to {assignment.worker} is in the ledger and "
                                  f"being paid (payment {payment.pk}).")


# --- aggregation and the span batch ---------------------------------------------------------------

@project_view(MANAGE)
def aggregation(request: HttpRequest, project: Project, run_id: int) -> HttpResponse:
    run = get_object_or_404(AggregationRun.objects.select_related("batch"), pk=run_id, projects=project)
    counts = outcome_counts(run)
    positives = next(found.count for found in counts if found.key == "positive")
    split = (run.outcomes.filter(yes__gt=0, no__gt=0).select_related("item").order_by("-yes", "pk")[:50])
    votes = Counter(dict(run.outcomes.values_list("yes").annotate(n=Count("pk")).order_by()))
    # The other runs of the batch, and what changes against the one asked for (?compare=RUN).
    others = list(run.batch.aggregations.exclude(pk=run.pk).order_by("-created")[:20])
    wanted = request.GET.get("compare", "")
    against = next((other for other in others if str(other.pk) == wanted), None)
    comparison = runs_compare(before=against, after=run, limit=30) if against else None
    form = forms.SpanBatchForm(request.POST or None, tests=selectors.test_choices(project),
                               items=positives, initial={"name": f"{project.name}: spans"})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        _start(request, project, "project-span-batch", {
            "run": run.pk, "name": data["name"], "provider": data["provider"], "items_per_hit": data["items_per_hit"],
            "annotators": data["assignments_per_hit"], "reward": str(data["reward"]),
            "budget": str(data["budget"]) if data["budget"] is not None else None,
            "qualification": data["qualification"], "requirements": form.requirements(), "seed": data["seed"]})
        return redirect("projects:detail", project.slug)
    return render(request, "projects/aggregation.html", {
        "project": project, "run": run, "positives": positives, "positive_meaning": positive_meaning(run),
        "split": split, "form": form, "outcome_rows": counts, "total": sum(found.count for found in counts),
        "others": others, "comparison": comparison,
        "votes": sorted(votes.items()), "workers": run.worker_stats.select_related("worker__user")
        .order_by("-consensus_accuracy", "pk"),
        "few_votes": run.method == "paper" and run.rules.get("votes_required", 5) > run.batch.assignments_per_hit,
        "model_beside": model_beside_said(run) if run.summary.get("model", {}).get("beside") else "",
        "domains": sorted(run.summary.get("by_domain", {}).items())})


# --- dataset versions ---------------------------------------------------------------------------------

@project_view(MANAGE)
def version_new(request: HttpRequest, project: Project) -> HttpResponse:
    runs = list(project.aggregations.select_related("batch").order_by("-created"))
    if not runs:
        messages.warning(request, "Aggregate the votes first.")
        return redirect("projects:detail", project.slug)
    unreviewed = SpanAnnotation.objects.filter(source_item__in=runs[0].outcomes.values("item"),
                                               state=SpanAnnotation.State.UNREVIEWED).count()
    form = forms.VersionForm(request.POST or None, unreviewed=unreviewed,
                             initial={"name": f"{project.slug}-v{project.versions.count() + 1}"})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        _start(request, project, "project-version", {
            "run": runs[0].pk, "name": data["name"], "test_share": data["test_share"], "seed": data["seed"],
            "stratify": data["stratify"].split(","), "group_by_document": data["group_by_document"]})
        return redirect("projects:detail", project.slug)
    return render(request, "projects/form.html", {
        "project": project, "form": form, "title": "Build a dataset version", "submit": "Build the version",
        "intro": f"Freezes the labels of aggregation {runs[0].pk} ({runs[0].batch.name}) and the accepted spans "
                 f"into a version with a train/test split; a version never changes afterwards.",
        "warning": f"{counted(unreviewed, 'span annotation')} of its positives "
                   f"{'are' if unreviewed != 1 else 'is'} not reviewed yet: the version would leave "
                   f"{'their' if unreviewed != 1 else 'its'} spans out of Subtask 2." if unreviewed else ""})


def _version(project: Project, name: str) -> DatasetVersion:
    return get_object_or_404(DatasetVersion, name=name, projects=project)


@project_view(READ)
def version(request: HttpRequest, project: Project, name: str) -> HttpResponse:
    found = _version(project, name)
    (row,) = version_rows(ids=[found.pk])
    if request.method == "POST":
        _start(request, project, "export", target=found.pk)
        return redirect("projects:version", project.slug, found.name)
    card = ""
    if row["files"] and "README.md" in row["files"]:
        try:
            card = (settings.EXPORT_ROOT / found.name / "README.md").read_text(encoding="utf-8")
        except OSError:
            card = ""
    job = row["job"]
    return render(request, "projects/version.html", {"project": project, "version": found, "row": row, "card": card,
                                                     "busy": bool(job and job.is_live)})


@project_view(READ)
def version_plot(request: HttpRequest, project: Project, name: str) -> HttpResponse:
    found = _version(project, name)
    figure = Figure(figsize=(10, 3.6))
    word_count_figure(found, figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    return HttpResponse(buffer.getvalue(), content_type="image/png")
