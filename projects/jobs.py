"""A project's long steps as job kinds: each calls the service of the app that does the work and
links what it made to the project. The target of each is the project; the options say the rest."""

from __future__ import annotations

import tempfile
import time
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.defaultfilters import filesizeformat

from aggregation.models import AggregationRun
from aggregation.services import batch_aggregate
from core.words import counted
from designs.semeval import span_batch_create, subtask1_batch_create
from filtering.models import Corpus, FilterChunk
from filtering.readers import CorpusFileError
from filtering.services import corpus_ingest, filter_run_prepare
from filtering.tasks import filter_chunk
from hits.models import Batch
from jobs.models import Job
from jobs.registry import JOB_KINDS, JobKind
from jobs.services import JobFailed, job_check_cancelled, job_record
from projects.designs import DESIGNS
from projects.models import BatchFigures, Project, Sample, Upload
from qualification.services import qualification_test_create, reserved_sentence_ids
from releases.services import dataset_from_aggregation

SHOWN_ERRORS = 200
MAX_REFUSED_LINES = 100_000
CHECK_EVERY = 250  # records between two looks at the cancel flag and two progress notes


def run_ingest(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    upload = Upload.objects.get(pk=options["upload"], project=project)
    seen = 0

    def progress(_: Any) -> None:
        nonlocal seen
        seen += 1
        if seen % CHECK_EVERY == 0:
            job_check_cancelled(job)
            job_record(job, read=seen)

    try:
        report = corpus_ingest(path=Path(upload.path), corpus_name=options["corpus"], fmt=upload.format,
                               domain=options.get("domain") or None, text_column=options.get("text_column", "text"),
                               id_column=options.get("id_column", "id"), progress=progress,
                               domains=tuple(project.domains))
    except CorpusFileError as error:
        # Named by the file the organizer uploaded, never by where this server keeps it.
        raise JobFailed(str(error).replace(str(upload.path), upload.name), result={}) from None
    errors = [_refusal(upload, error) for error in report.errors]
    # The lines of the refused documents, for the file of them the organizer downloads, fixes and uploads again.
    lines = sorted({error.line for error in report.errors})[:MAX_REFUSED_LINES] if upload.format != "txt-dir" else []
    refused = {"read": seen, "error_count": len(errors), "errors": errors[:SHOWN_ERRORS], "refused_lines": lines}
    corpus = Corpus.objects.filter(name=report.corpus).first()
    if corpus is None:
        raise JobFailed(f"nothing was stored from {upload.name}: "
                        + (f"all {len(errors):,} of its documents were refused (the reasons below); fix them and "
                           f"upload the file again" if errors else "it holds no document"), result=refused)
    project.corpora.add(corpus)
    message = (f"corpus {corpus.name}: {counted(report.documents, 'document')} and "
               f"{counted(report.sentences, 'sentence')} stored"
               + (f", {report.skipped_existing:,} already there" if report.skipped_existing else "")
               + (f"; {counted(len(errors), 'document')} refused (listed on the upload page)" if errors else ""))
    return message, {"corpus": corpus.pk, "documents": report.documents, "sentences": report.sentences, **refused}


def _refusal(upload: Upload, error: Any) -> str:
    """A refused record named by the file the organizer uploaded (a member of an uploaded zip by its name
    inside it), never by where this server keeps it."""
    stored = Path(upload.path)
    try:
        inside = Path(error.file).relative_to(stored)
    except ValueError:
        inside = None
    name = f"{upload.name}/{inside}" if inside and str(inside) != "." else upload.name
    return f"{name}:{error.line}: {error.message}"


def ingest_progress(job: Job) -> tuple[int, int] | None:
    total = job.options.get("records")
    return (job.result.get("read", 0), total) if total else None


def run_filter(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    corpus = Corpus.objects.get(pk=job.options["corpus"], projects=project)
    run = filter_run_prepare(profile=job.options["profile"], corpus=corpus)
    project.filter_runs.add(run)
    job_record(job, run=run.pk)
    pending = list(run.chunks.filter(done=False).values_list("pk", flat=True))
    for chunk_id in pending:  # one task per chunk: with a broker, every worker takes a share
        job_check_cancelled(job)
        filter_chunk.delay(chunk_id)
    message = f"filter run {run.pk} ({run.profile}): {counted(len(pending), 'chunk')} of sentences handed out"
    return message, {"run": run.pk}


def filter_progress(job: Job) -> tuple[int, int] | None:
    if not job.result.get("run"):
        return None
    chunks = FilterChunk.objects.filter(run_id=job.result["run"])
    return chunks.filter(done=True).count(), chunks.count()


def run_qualification(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    upload = Upload.objects.get(pk=options["upload"], project=project)
    test = qualification_test_create(name=options["name"], path=Path(upload.path), seed=options["seed"],
                                     threshold=options["threshold"], duration=options["duration"],
                                     retake_delay=options["retake_delay"])
    project.tests.add(test)
    return f"{test}: {test.items.count()} items drawn from {upload.name}", {"test": test.pk}


def _requirements(options: dict[str, Any]) -> dict[str, Any]:
    """The worker filters a batch form asked for (jobs started before filters existed name only a test)."""
    found = dict(options.get("requirements") or {})
    if options.get("qualification"):
        found["qualification"] = options["qualification"]
    return found


def run_batch(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    sample = Sample.objects.select_related("run").get(pk=options["sample"], project=project)
    gold = Upload.objects.get(pk=options["gold_upload"], project=project) if options.get("gold_upload") else None
    requirements = _requirements(options)
    batch = subtask1_batch_create(
        run=sample.run, candidate_ids=sample.candidate_ids, name=options["name"], provider=options["provider"],
        items_per_hit=options["items_per_hit"], assignments_per_hit=options["assignments_per_hit"],
        reward=Decimal(options["reward"]), budget=Decimal(options["budget"]) if options.get("budget") else None,
        gold_path=Path(gold.path) if gold else None, gold_count=options.get("gold_count", 0),
        gold_rate=options.get("gold_rate", 0.0), seed=options.get("seed", 0), requirements=requirements,
        exclude_gold=reserved_sentence_ids(), created_by=job.created_by, adaptive=options.get("adaptive") or "")
    project.batches.add(batch)
    return f"batch {batch.pk}: {batch.hits.count():,} HITs of {batch.items.count():,} items", {"batch": batch.pk}


def run_aggregate(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    batch = Batch.objects.get(pk=options["batch"], projects=project)
    run = batch_aggregate(batch=batch, samples=options.get("samples", 1000), method=options.get("method", "paper"),
                          keep_partial_negatives=options.get("keep_partial_negatives", 1.0),
                          seed=options.get("seed", 0), with_model=options.get("with_model") or None,
                          progress=lambda done, total: job_record(job, done=done, total=total))
    project.aggregations.add(run)
    alpha = f"{run.alpha:.3f}" if run.alpha is not None else "n/a"
    return f"aggregation {run.pk}: {run.votes:,} votes, alpha {alpha}", {"run": run.pk}


def run_span_batch(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    run = AggregationRun.objects.get(pk=options["run"], projects=project)
    requirements = _requirements(options)
    batch = span_batch_create(run=run, name=options["name"], items_per_hit=options["items_per_hit"],
                              annotators=options.get("annotators", 1), provider=options["provider"],
                              reward=Decimal(options["reward"]),
                              budget=Decimal(options["budget"]) if options.get("budget") else None,
                              requirements=requirements, seed=options.get("seed", 0), created_by=job.created_by)
    project.batches.add(batch)
    return (f"span batch {batch.pk}: {batch.items.count():,} sentences in {batch.hits.count():,} HITs",
            {"batch": batch.pk})


def run_version(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    options = job.options
    run = AggregationRun.objects.get(pk=options["run"], projects=project)
    version = dataset_from_aggregation(run=run, name=options["name"], test_share=options["test_share"],
                                       seed=options["seed"], stratify=tuple(options["stratify"]),
                                       group="document" if options.get("group_by_document") else None)
    project.versions.add(version)
    report = version.split_report
    return (f"dataset version {version.name}: {report['train']} train / {report['test']} test sentences",
            {"version": version.pk, "name": version.name})


def run_figures(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    """The project design's report-step numbers of one batch, kept for the pages (BatchFigures)."""
    batch = Batch.objects.get(pk=job.options["batch"], projects=project)
    design = DESIGNS.get(project.design)
    if design.figures is None:
        raise JobFailed(f"the {project.design} design has no figures to compute", result={})
    # The version first: work that lands while the batch is read makes the figures stale, never silently current.
    version = Batch.objects.values_list("work_version", flat=True).get(pk=batch.pk)
    started = time.perf_counter()
    text = design.figures(batch, lambda done, total: job_record(job, done=done, total=total))
    seconds = time.perf_counter() - started
    BatchFigures.objects.update_or_create(batch=batch, design=project.design,
                                          defaults={"text": text, "work_version": version, "seconds": seconds})
    return f"figures of batch {batch.pk} ({seconds:.1f} s)", {"batch": batch.pk}


def run_export(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    """A design batch's export (every format) as one zip under EXPORT_ROOT, for the page's download link: written
    row by row, zipped file by file, so memory stays flat in the batch's size; the batch's older zips go."""
    from designs.export import export_batch

    batch = Batch.objects.get(pk=job.options["batch"], projects=project)
    version = Batch.objects.values_list("work_version", flat=True).get(pk=batch.pk)
    folder = settings.EXPORT_ROOT / "projects" / project.slug
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{project.slug}-batch-{batch.pk}"
    path = folder / f"{name}-{job.pk}.zip"
    total = batch.items.count()
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        out = Path(scratch) / "export"
        written = export_batch(batch=batch, out=out,
                               progress=lambda done: job_record(job, done=done, total=total))
        partial = Path(scratch) / "export.zip"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in written:
                archive.write(file, f"{name}/{file.relative_to(out)}")
        partial.replace(path)
    for older in folder.glob(f"{name}-*.zip"):
        if older != path:
            older.unlink(missing_ok=True)
    size = path.stat().st_size
    return (f"export of batch {batch.pk}: {len(written)} files, {filesizeformat(size)} zipped",
            {"batch": batch.pk, "file": str(path.relative_to(settings.EXPORT_ROOT)), "bytes": size,
             "work_version": version})


def run_model(job: Job, project: Project) -> tuple[str, dict[str, Any]]:
    """A language model asked a design batch's items (designs.model_runs), in a worker: the key is read from the
    worker's environment by the variable the options name (a job's options are stored; a key never is)."""
    import os

    from designs.model_runs import Endpoint, ModelError, model_run

    options = job.options
    batch = Batch.objects.get(pk=options["batch"], projects=project)
    key = os.environ.get(options["key_env"], "") if options.get("key_env") else ""
    if options.get("key_env") and not key:
        raise JobFailed(f"the environment variable {options['key_env']} is not set where the job runs", result={})
    endpoint = Endpoint(url=options["url"], model=options.get("model", ""), key=key,
                        price_in=Decimal(options.get("price_in", "0")),
                        price_out=Decimal(options.get("price_out", "0")))

    def progress(done: int, total: int) -> None:
        job_check_cancelled(job)
        job_record(job, done=done, total=total)

    try:
        run = model_run(batch=batch, endpoint=endpoint, concurrency=int(options.get("concurrency", 4)),
                        budget=Decimal(options["budget"]) if options.get("budget") else None,
                        limit=options.get("limit"), samples=int(options.get("samples", 1)),
                        position_check=bool(options.get("position_check")), progress=progress)
    except ModelError as error:
        raise JobFailed(str(error), result={"batch": batch.pk}) from None
    return (f"{run.annotator}: {run.answered:,} of {counted(run.items, 'item')} answered, "
            f"{len(run.refused):,} refused; cost {run.cost:.6f}",
            {"batch": batch.pk, "run": run.pk, "done": run.items, "total": run.items})


def done_of(job: Job) -> tuple[int, int] | None:
    """A job's progress as its work records it in the job's result."""
    found = Job.objects.filter(pk=job.pk).values_list("result", flat=True).first() or {}
    return (found["done"], found["total"]) if "done" in found and "total" in found else None


def _register(name: str, label: str, run: Any, progress: Any = None, cancellable: bool = False) -> None:
    JOB_KINDS.register(name, JobKind(name, label, "projects.Project", run, progress, cancellable))


_register("project-ingest", "ingest an upload into", run_ingest, ingest_progress, cancellable=True)
_register("project-filter", "run the candidate filter for", run_filter, filter_progress, cancellable=True)
_register("project-qualification", "draw the screening test of", run_qualification)
_register("project-batch", "create the labeling batch of", run_batch)
_register("project-aggregate", "aggregate the votes of", run_aggregate, done_of)
_register("project-span-batch", "create the span batch of", run_span_batch)
_register("project-version", "build a dataset version of", run_version)
_register("project-figures", "compute the report figures of", run_figures, done_of)
_register("project-export", "export a batch of", run_export, done_of)
_register("project-model", "ask a language model the items of", run_model, done_of, cancellable=True)
