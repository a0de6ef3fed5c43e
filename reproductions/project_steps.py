"""The other crowd designs as project designs: Balanced COPA's 2-choice validation, Cheap Facts' facts /
counter-facts and TimeTravel's story rewriting. Their batches are made by commands (`manage.py copa batch`,
`manage.py facts batch`, `manage.py stories start`) and linked to the project; the steps follow the batch,
the work, the paper's numbers and the export."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Count, F
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone

from core.words import counted
from designs.compare import compare
from designs.export import batch_report
from designs.model_runs import SOURCE as MODEL_SOURCE
from designs.models import DesignBatch
from designs.stages import workflow_batches, workflow_report
from hits.models import Batch
from projects.designs import DESIGNS, Design, Step
from projects.selectors import ProjectContext
from reproductions.copa import choice_report
from reproductions.facts import tables
from reproductions.stories import statistics


def _batch_steps(context: ProjectContext, task_type: str, command: str, export: str, download: bool = False,
                 report_title: str = "The paper's numbers",
                 only: Callable[[Batch], bool] | None = None) -> list[Step]:
    project = context.project
    rows = [row for row in context.batches_of(task_type) if only is None or only(row["batch"])]
    if task_type == "design":
        # A multi-stage design's later stages fill from the first: the steps follow the first stage's batch.
        later = set(DesignBatch.objects.filter(batch__in=[row["batch"] for row in rows]).exclude(workflow=None)
                    .exclude(workflow=F("batch")).values_list("batch_id", flat=True))
        rows = [row for row in rows if row["batch"].pk not in later]
    made = Step("batch", "Batch", summary=f"made with `{command}`, then linked to this project "
                                          f"(a form for it here is not built yet)")
    if download:
        made.summary = f"made with the design page ({reverse('projects:design_new')}) or `{command}`"
    work = Step("work", "Crowd work")
    report = Step("report", report_title)
    out = Step("export", "Export", summary=f"`{export}`")
    if not rows:
        made.state = "ready"
        return [made, work, report, out]
    row = rows[-1]
    batch = row["batch"]
    page = reverse("projects:batch", args=[project.slug, batch.pk])
    made.links = [(f"Batch {batch.pk}", page)]
    made.summary = (f"{batch.name}: {counted(row['hits']['total'], 'HIT')}, "
                    f"{counted(batch.assignments_per_hit, 'worker')} a HIT")
    link = DesignBatch.objects.select_related("version__created_by").filter(batch=batch).first()
    if link is not None:
        version = link.version
        made.summary += (f"; design {version.title!r} (version {version.number}, "
                         + (f"made on the design page by {version.created_by.username})" if version.created_by
                            else "from a design file)"))
    stages = workflow_batches(batch) if task_type == "design" else {}
    if len(stages) > 1:
        # Publishing the first stage is enough: each later one opens as the stage it reads sends work on.
        made.summary += "; stages " + ", ".join(stages) + " (each later stage fills as the one it reads is done)"
        made.links += [(f"Stage {name}: batch {stage.pk}", reverse("projects:batch", args=[project.slug, stage.pk]))
                       for name, stage in stages.items() if stage != batch]
        made.links.append(("Chains that used their rounds", reverse("designs:chains", args=[batch.pk])))
    work.summary = (f"{row['submitted']:,}/{row['needed']:,} assignments submitted, {row['approved']:,} approved; "
                    f"spent {row['spent']} of {row['estimate']}")
    work.links = [("Filters, cost and review", page)]
    out.summary = f"`{export.replace('BATCH', str(batch.pk)).replace('WORKFLOW', str(batch.pk))}`"
    if batch.state == Batch.State.DRAFT:
        # Made, not published: nobody can work on it yet, and nothing is spent.
        made.state, made.summary = "ready", f"{made.summary}; a draft, not published yet"
        made.action = ("Publish (confirm the cost)", reverse("projects:publish", args=[project.slug, batch.pk]))
        work.state, work.summary = "blocked", "starts when the batch is published"
        return [made, work, report, out]
    made.state = "done"
    if batch.state in (Batch.State.PUBLISHING, Batch.State.PUBLISHED):
        work.state, work.action = "working", ("Watch and review the work", page)
    else:
        work.state = "done"
    if not row["submitted"] and not batch.outside_answers.exists():
        report.summary = "waits for the first answers"
        return [made, work, report, out]
    # The figures so far while the work goes on; done when the work is. A job computes them (project-figures) and
    # the page shows what it kept: a page view never reads every answer.
    report.state = "done" if work.state == "done" else "working"
    stored = context.figures_of(batch)
    computing = any(job.options.get("batch") == batch.pk for job in context.live_jobs("project-figures"))
    latest = next((job for job, _ in context.jobs if job.kind == "project-figures"
                   and job.options.get("batch") == batch.pk), None)
    if stored is None and latest is not None and latest.state == latest.State.FAILED:
        report.summary = f"the figures could not be computed: {latest.message} (tried again on the next visit)"
    elif stored is None:
        report.state, report.summary = "working", "the figures are being computed (a job: this page follows it)"
    else:
        report.summary = stored.text + ("" if work.state == "done" else " (so far: the work goes on)")
        if stored.work_version != batch.work_version:
            report.summary += (f"; as of {timezone.localtime(stored.made):%H:%M}, "
                               + ("the newer answers are being counted" if computing else "newer answers came in"))
    if download:
        export_step(context, batch, out, work.state == "done")
    else:
        out.state = "ready" if work.state == "done" else "blocked"
    return [made, work, report, out]


def export_step(context: ProjectContext, batch: Batch, out: Step, done: bool) -> None:
    """The export as a job (project-export) writing a zip the step links to; answers so far can be exported while
    the work goes on, the labels settle when it is done."""
    project = context.project
    command = out.summary
    out.state = "ready" if done else "working"
    out.summary = ("every answer, the labels and their agreement, as CSV, JSON Lines, Parquet and a Hugging Face "
                   "dataset folder, in one zip" + ("" if done else " (the answers so far)") + f"; or {command}")
    out.post = ("Export answers and labels (zip)", reverse("projects:design_export_start", args=[project.slug,
                                                                                              batch.pk]))
    if any(job.options.get("batch") == batch.pk for job in context.live_jobs("project-export")):
        out.state, out.post = "working", None
        out.summary += "; an export is being written (a job: this page follows it)"
    made = context.exports.get(batch.pk)
    if made is not None:
        size = made.result.get("bytes", 0)
        shown = filesizeformat(size)
        when = timezone.localtime(made.finished) if made.finished else None
        out.links = [(f"Download the export of {when:%Y-%m-%d %H:%M} ({shown})" if when else "Download",
                      reverse("projects:design_export", args=[project.slug, batch.pk]))]
        if made.result.get("work_version") != batch.work_version:
            out.summary += "; answers came in after the last export: export again for them"
        elif done and out.post is not None:
            out.state, out.post = "done", ("Export again", out.post[1])


def _copa_numbers(batch: Batch) -> str:
    found = choice_report(batch, samples=0)

    def part(name: str) -> str:
        row = found[name]
        kappa = row["fleiss"]["value"]
        accuracy = "-" if row["accuracy"] is None else f"{row['accuracy']:.0%}"
        return f"{name} accuracy {accuracy}, kappa {'-' if kappa is None else format(kappa, '.3f')}"

    return "; ".join(part(name) for name in ("original", "mirrored", "all")) + f" (`manage.py copa report {batch.pk}`)"


def _facts_numbers(batch: Batch) -> str:
    found: dict[str, Any] = tables(batch)
    parts = [f"{row['statements']:,} {name} on {row['texts_answered']:,} paragraphs, "
             f"{found['table2'][name]['length']:.1f} words, BoW {found['table2'][name]['bow']:.2f}"
             for name, row in found["table1"].items()]
    return "; ".join(parts) + f" (`manage.py facts report {batch.pk}`)"


DESIGNS.register("balanced-copa", Design(
    name="balanced-copa", title="2-choice validation (Balanced COPA)",
    description="Original and mirrored COPA items, three workers each: majority accuracy against the intended "
                "answers and Fleiss' kappa by subset, the superficial-cue report, pair-keeping train/dev files.",
    steps=lambda context: _batch_steps(context, "design", "manage.py copa batch COPA.xml --name NAME",
                                       "manage.py copa export COPA.xml --out DIR", download=True),
    figures=lambda batch, progress: _copa_numbers(batch)))

DESIGNS.register("cheap-facts", Design(
    name="cheap-facts", title="Facts and counter-facts (Cheap Facts)",
    description="RTE paragraphs with a highlighted entity; workers write facts or contradicting statements under "
                "live quality rules; RTE-style T-H pairs with the paper's Tables 1 and 2.",
    steps=lambda context: _batch_steps(context, "design", "manage.py facts batch RTE.xml --name NAME",
                                       "manage.py facts export BATCH --out DIR", download=True),
    figures=lambda batch, progress: _facts_numbers(batch)))


def _stories_numbers(batch: Batch) -> str:
    found = statistics(batch)
    endings = sum(row["edited_endings"] for row in found["splits"].values())
    return (f"{endings:,} edited endings; {found['checks']['failed']:,} of {found['checks']['total']:,} checks sent "
            f"the counterfactual back; {found['chains'].get('review', 0)} chain(s) wait for review at "
            f"/review/chains/{batch.pk}/ (`manage.py stories report {batch.pk}`)")


DESIGNS.register("timetravel", Design(
    name="timetravel", title="Counterfactual story rewriting (TimeTravel)",
    description="Five-sentence stories through write -> check -> edit: a counterfactual second sentence, checked "
                "and sent back by another worker or the ending minimally edited by them; lineage per chain, "
                "Likert and pairwise evaluation, released JSONL splits.",
    steps=lambda context: _batch_steps(context, "design", "manage.py stories start STORIES.jsonl --name NAME",
                                       "manage.py stories export WORKFLOW --out DIR",
                                       only=lambda batch: len(workflow_batches(batch)) > 1),
    figures=lambda batch, progress: _stories_numbers(batch)))


def _design_numbers(batch: Batch, progress: Callable[[int, int], None]) -> str:
    """Agreement per scheme (and a workflow's stages), read item by item (designs.export.batch_report)."""
    total = batch.items.count()
    found = batch_report(batch, progress=lambda done: progress(done, total))
    parts = []
    for name, result in found.results.items():
        if not result.level:
            continue
        if result.alpha is not None:
            parts.append(f"{name}: alpha {result.alpha:.2f}")
        elif result.answers <= result.seen:
            parts.append(f"{name}: no agreement yet (each item has one answer so far; agreement needs two)")
        else:
            parts.append(f"{name}: no agreement (the answers leave nothing to compare: all alike)")
    parts += [f"{figure} {value}" for figure, value in found.figures.items()]
    outside = dict(batch.outside_answers.values_list("source").annotate(count=Count("pk")).order_by())
    if outside.get("labelstudio"):
        parts.append(f"{counted(outside['labelstudio'], 'answer')} imported from Label Studio among them")
    if outside.get(MODEL_SOURCE):
        parts.append(_model_numbers(batch))
    if len(workflow_batches(batch)) > 1:
        stages = workflow_report(batch)
        parts += [f"stage {name}: {counted(row['items'], 'item')}, {counted(row['answers'], 'answer')}, "
                  f"{row['sent_back']:,} sent back" + (f" (waiting: {row['note']})" if row["note"] else "")
                  for name, row in stages["stages"].items()]
        parts.append(f"{counted(stages['waiting'], 'chain')} used {'its' if stages['waiting'] == 1 else 'their'} "
                     f"rounds and wait{'s' if stages['waiting'] == 1 else ''} for you")
    return "; ".join(parts or ["answers stored"]) + f" (`manage.py design report {batch.pk}`)"


def _model_numbers(batch: Batch) -> str:
    """The last model that answered the batch against the crowd (designs.compare), in a line."""
    found = compare(batch)
    parts = []
    for entry in found["schemes"]:
        accuracy, kappa = entry["accuracy"], entry["kappa"]
        if accuracy["value"] is None:
            parts.append(f"{entry['scheme']}: no item has both the model's answer and a crowd label yet")
            continue
        parts.append(f"{entry['scheme']}: the model agrees with the crowd's label on {accuracy['value']:.0%} of "
                     f"{counted(entry['compared'], 'item')} (95% interval {accuracy['low']:.0%} to "
                     f"{accuracy['high']:.0%})" + (f", kappa {kappa['value']:.2f}" if kappa["value"] is not None
                                                    else ""))
    shown = found["suggestions"]
    for entry in shown["schemes"] if shown else []:
        follows = entry["difference"]["follows"]
        parts.append(f"{entry['scheme']}: people shown the suggestion gave the model's answer "
                     f"{_share(entry['shown']['follows'])}, those held out {_share(entry['held_out']['follows'])}"
                     + (f" (difference {follows['value']:+.0%}, 95% interval {follows['low']:+.0%} to "
                        f"{follows['high']:+.0%})" if follows["low"] is not None else ""))
    cost = f"cost {found['model_cost']['total']}" if found["model_cost"]["asked"] else "with the project"
    return (f"model {found['model']}: {counted(found['items_answered'], 'item')} answered, {cost}; "
            + "; ".join(parts) + f" (`manage.py design compare {batch.pk}`)")


def _share(figure: dict[str, Any]) -> str:
    """A share with its interval from designs.compare ("62% (95% interval 50% to 71%)"), or "-" with no answers."""
    if figure["value"] is None:
        return "-"
    return f"{figure['value']:.0%}" + (f" (95% interval {figure['low']:.0%} to {figure['high']:.0%})"
                                       if figure["low"] is not None else "")


DESIGNS.register("design-file", Design(
    name="design-file", title="A study from a design",
    description="Any annotation study declared in one YAML design file: its schemes on the generic task page, "
                "agreement per scheme, answers and labels exported as CSV, JSON Lines, Parquet and a Hugging Face "
                "dataset folder.",
    steps=lambda context: _batch_steps(context, "design", "manage.py design new FILE --items DATA",
                                       "manage.py design export BATCH --out DIR", download=True,
                                       report_title="Agreement and labels"),
    figures=_design_numbers))
