"""The SemEval-2020 Task 5 design: news text to counterfactual labels, spans and released splits.

corpus → filter → sample → screening test → labeling batch → review and
aggregation → span batch → span review → dataset version.
"""

from __future__ import annotations

from django.urls import reverse

from aggregation.selectors import outcome_summary
from core.words import counted
from designs.semeval import SUBTASK1_DESIGN, SUBTASK2_DESIGN
from hits.models import Batch
from projects.designs import DESIGNS, Design, Step
from projects.models import Project
from projects.selectors import ProjectContext


def _url(name: str, project: Project, *args: object) -> str:
    return reverse(f"projects:{name}", args=[project.slug, *args])


def _corpus_step(context: ProjectContext) -> Step:
    project = context.project
    step = Step("corpus", "Corpus", action=("Upload a corpus", _url("upload", project)))
    stored = [row for row in context.corpora if row["documents"]]
    if context.live_jobs("project-ingest"):
        step.state, step.summary = "working", "ingesting an upload"
    elif stored:
        step.state = "done"
        step.action = ("Upload another corpus", _url("upload", project))
    else:
        step.state = "ready"
    if stored:
        stored_text = "; ".join(f"{row['corpus'].name}: {counted(row['documents'], 'document')}, "
                                f"{counted(row['sentences'], 'sentence')}" for row in stored)
        step.summary = stored_text + (f" ({step.summary})" if step.summary else "")
    return step


def _filter_step(context: ProjectContext, corpus_done: bool) -> Step:
    project = context.project
    step = Step("filter", "Candidate filter", action=("Run the filter", _url("filter", project)))
    if not corpus_done:
        return step
    done = [(run, report) for run, report in context.runs if report.chunks and report.chunks_done == report.chunks]
    running = [(run, report) for run, report in context.runs if report.chunks_done < report.chunks]
    covered = {run.corpus_id for run, _ in done}
    if context.live_jobs("project-filter") or running:
        step.state = "working"
    elif done and all(row["corpus"].pk in covered for row in context.corpora if row["documents"]):
        step.state = "done"
        step.action = ("Run it again (another profile)", _url("filter", project))
    else:
        step.state = "ready"
    step.summary = "; ".join(
        f"{run.profile} over {run.corpus}: {report.candidates:,} candidates of {report.sentences:,} sentences "
        f"({100 * report.candidates / report.sentences if report.sentences else 0:.2f}%)"
        + ("" if report.chunks_done == report.chunks else f", chunk {report.chunks_done} of {report.chunks}")
        for run, report in context.runs)
    return step


def _sample_step(context: ProjectContext, filter_done: bool) -> Step:
    project = context.project
    step = Step("sample", "Sample", action=("Sample candidates", _url("sample", project)))
    if context.sample:
        per_group = context.sample.report.get("per_group", {})
        step.state = "done"
        step.summary = (f"{len(context.sample.candidate_ids):,} candidates of filter run {context.sample.run_id}: "
                        + ", ".join(f"{group} {count}" for group, count in per_group.items()))
        step.action = ("Sample again", _url("sample", project))
    elif filter_done:
        step.state = "ready"
    return step


def _test_step(context: ProjectContext) -> Step:
    project = context.project
    step = Step("qualification", "Screening test", action=("Draw the screening test", _url("qualification", project)))
    if context.live_jobs("project-qualification"):
        step.state, step.summary = "working", "drawing the test"
    elif context.tests:
        latest = context.tests[0]
        step.state = "done"
        step.summary = (f"{latest['test']}: {latest['items']} items, pass at {latest['test'].pass_threshold}%; "
                        f"{latest['qualified']} workers qualified")
        step.action = ("See and edit its items", _url("qualification", project))
        step.links = [("Pool of workers", reverse("qualification:pool", args=[latest["test"].name]))]
    else:
        step.state = "ready"
    return step


def _batch_summary(row: dict) -> str:
    batch = row["batch"]
    return (f"{batch.name}: {batch.state}, {row['hits']['published']:,}/{row['hits']['total']:,} HITs published, "
            f"{row['submitted']:,}/{row['needed']:,} assignments submitted, {row['approved']:,} approved; "
            f"spent {row['spent']} of {row['estimate']}")


def _labeling_step(context: ProjectContext, sample_done: bool) -> Step:
    project = context.project
    step = Step("labeling", "Labeling batch", action=("Create the labeling batch", _url("batch_new", project)))
    rows = context.batches_of(SUBTASK1_DESIGN)
    if not rows:
        step.state = "ready" if sample_done else "blocked"
        if context.live_jobs("project-batch"):
            step.state, step.summary = "working", "creating the batch"
        return step
    row = rows[-1]
    batch = row["batch"]
    step.summary = _batch_summary(row) + (f" ({len(rows) - 1} earlier labeling batches)" if len(rows) > 1 else "")
    step.links = [(f"Batch {r['batch'].pk}", _url("batch", project, r["batch"].pk)) for r in rows]
    if batch.state == Batch.State.DRAFT:
        step.state, step.action = "ready", ("Publish (confirm the cost)", _url("publish", project, batch.pk))
    elif batch.state in (Batch.State.PUBLISHING, Batch.State.PUBLISHED):
        step.state, step.action = "working", ("Watch and review the work", _url("batch", project, batch.pk))
    else:
        step.state, step.action = "done", ("Review the work", _url("batch", project, batch.pk))
    if batch.assignments_per_hit < 5:
        step.note = (f"{batch.assignments_per_hit} workers a HIT: the paper's rules need five votes a sentence, so "
                     f"no sentence can be labeled.")
    return step


def _aggregation_step(context: ProjectContext) -> Step:
    project = context.project
    step = Step("aggregation", "Review and aggregate")
    rows = context.batches_of(SUBTASK1_DESIGN)
    if not rows or rows[-1]["submitted"] == 0:
        return step
    batch = rows[-1]["batch"]
    run = context.latest_aggregation(batch)
    waiting = rows[-1]["states"].get("submitted", 0)
    pending_checks = context.spot_checks.get(batch.pk, 0)
    step.action = ("Aggregate the votes", _url("batch", project, batch.pk) + "#aggregate")
    if context.live_jobs("project-aggregate"):
        step.state = "working"
    elif run is None:
        step.state = "ready"
    else:
        step.state = "done"
        alpha = f"alpha {run.alpha:.3f}" if run.alpha is not None else "alpha n/a"
        step.summary = f"aggregation {run.pk} ({run.method}): {outcome_summary(run)}; {alpha}"
        step.links = [(f"Aggregation {run.pk}", _url("aggregation", project, run.pk))]
        step.action = ("Aggregate again", _url("batch", project, batch.pk) + "#aggregate")
    if waiting or pending_checks:
        step.note = f"{waiting} submitted assignments wait for review; {pending_checks} spot checks are open."
    return step


def _span_batch_step(context: ProjectContext, aggregation_done: bool) -> Step:
    project = context.project
    step = Step("spans", "Span batch")
    run = context.aggregations[0] if context.aggregations else None
    rows = context.batches_of(SUBTASK2_DESIGN)
    if rows:
        row = rows[-1]
        batch = row["batch"]
        step.summary = _batch_summary(row)
        step.links = [(f"Batch {batch.pk}", _url("batch", project, batch.pk))]
        if batch.state == Batch.State.DRAFT:
            step.state, step.action = "ready", ("Publish (confirm the cost)", _url("publish", project, batch.pk))
        elif batch.state in (Batch.State.PUBLISHING, Batch.State.PUBLISHED):
            step.state = "working"
        else:
            step.state = "done"
    elif aggregation_done and run is not None:
        step.state = "working" if context.live_jobs("project-span-batch") else "ready"
        step.action = ("Create the span batch", _url("aggregation", project, run.pk) + "#span-batch")
    return step


def _span_review_step(context: ProjectContext) -> Step:
    step = Step("span-review", "Span review")
    rows = context.batches_of(SUBTASK2_DESIGN)
    if not rows:
        return step
    batch = rows[-1]["batch"]
    counts = context.spans.get(batch.pk)
    if not counts:
        return step
    unreviewed = counts.get("unreviewed", 0)
    step.summary = (f"{counts.get('accepted', 0)} accepted, {counts.get('removed', 0)} removed, {unreviewed} "
                    f"unreviewed ({counts.get('flagged', 0)} flagged)")
    step.action = ("Review the spans", reverse("annotation:review_list") + f"?show=unreviewed&batch={batch.pk}")
    step.state = "ready" if unreviewed else "done"
    return step


def _version_step(context: ProjectContext, aggregation_done: bool) -> Step:
    project = context.project
    step = Step("version", "Dataset version", action=("Build a dataset version", _url("version_new", project)))
    if context.versions:
        row = context.versions[0]
        version = row["version"]
        step.state = "done"
        step.summary = (f"{version.name}: {row['sentence_count']:,} sentences, {row['span_count']:,} with spans"
                        + ("; exported" if row["files"] else "; not exported yet"))
        step.links = [(version.name, _url("version", project, version.name))]
    elif context.live_jobs("project-version"):
        step.state = "working"
    elif aggregation_done:
        step.state = "ready"
    return step


def semeval_steps(context: ProjectContext) -> list[Step]:
    corpus = _corpus_step(context)
    filter_ = _filter_step(context, corpus.state == "done")
    sample = _sample_step(context, filter_.state == "done")
    test = _test_step(context)
    labeling = _labeling_step(context, sample.state == "done")
    aggregation = _aggregation_step(context)
    spans = _span_batch_step(context, aggregation.state == "done")
    return [corpus, filter_, sample, test, labeling, aggregation, spans, _span_review_step(context),
            _version_step(context, aggregation.state == "done")]


DESIGNS.register("semeval", Design(
    name="semeval", title="Counterfactual sentences (SemEval-2020 Task 5)",
    description="News text → Table 5 / Appendix B candidates → five votes a sentence → antecedent and consequent "
                "spans → 65/35 splits in the released formats.", steps=semeval_steps))
