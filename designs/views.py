"""The organizer's pages of design batches: the writing-evidence component's review (every submission's written
answers with how they were written, the ones most worth a look first; nothing here rejects anything, the review
form of the batch page does, by a person), and a multi-stage design's chains: their list, each one's lineage, and
the organizer's word on those that used their rounds."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from accounts import access
from accounts.roles import REVIEWER, role_required
from core.errors import CrowdsetError
from core.stories import word_diff
from designs.components import WRITING_EVIDENCE
from designs.evidence import canary_word, card
from designs.lineage import STATES, chains
from designs.models import batch_design
from designs.schemes.text import Text, prefill
from designs.stages import chain_decide, workflow_batches, workflow_report
from designs.stages import waiting_chains as waiting
from designs.task_type import record
from hits.models import Assignment, Batch, Item


@role_required(REVIEWER)
def writing_review(request, batch_id):
    batch = access.get_or_404(request.user, Batch.objects.filter(task_type="design"), access.REVIEW, pk=batch_id)
    design, _ = batch_design(batch.pk)
    if WRITING_EVIDENCE not in design.components:
        raise Http404("this batch's design does not record writing evidence")
    text_schemes = {str(index) for index, scheme in enumerate(design.annotation_schemes) if isinstance(scheme, Text)}
    paragraphs = {str(item.pk): item.content.text for item in Item.objects.filter(batch=batch)}
    rows = []
    for assignment in (Assignment.objects.filter(hit__batch=batch).exclude(submitted=None)
                       .select_related("worker__user", "hit").prefetch_related("hit__hit_items").order_by("pk")):
        raw = assignment.raw_answers or {}
        # A text box's field is "a-<item>-<scheme>" or "a-<item>-<scheme>-<box>" (designs/answers.py).
        parts = {name: name.split("-") for name in sorted(raw) if name.startswith("a-")}
        sources = {name: paragraphs[part[1]] for name, part in parts.items()
                   if len(part) in (3, 4) and part[1] in paragraphs and part[2] in text_schemes}
        shown = [hit_item.item_id for hit_item in assignment.hit.hit_items.all()]
        rows.append({"assignment": assignment, "card": card(raw, sources, canary_word(shown))})
    rows.sort(key=lambda row: (row["card"].suspicion, row["assignment"].pk))
    return render(request, "designs/writing_review.html", {"batch": batch, "rows": rows})


@role_required(REVIEWER)
def chain_list(request, batch_id):
    """GET: the workflow's stages and chains (the story-lineage component), those that used their rounds first with
    the organizer's choice. POST (origin, decision): the organizer's word on one of them."""
    batch = access.get_or_404(request.user, Batch.objects.filter(task_type="design"), access.REVIEW, pk=batch_id)
    stages = workflow_batches(batch)
    if len(stages) < 2:
        raise Http404("this batch is not a stage of a multi-stage design")
    first = next(iter(stages.values()))
    if request.method == "POST":
        try:
            origin = int(request.POST.get("origin", ""))
            made = chain_decide(batch=first, origin=origin, decision=request.POST.get("decision", ""),
                                user=request.user)
        except (ValueError, CrowdsetError) as error:
            messages.error(request, str(error) if isinstance(error, CrowdsetError) else "no chain was named")
        else:
            messages.success(request, f"Chain {made.origin_id}: {made.get_decision_display()}.")
        return redirect("designs:chains", batch_id=first.pk)
    state = request.GET.get("state", "")
    rows = waiting(first)
    found = chains(first, waiting=rows)
    shown = [chain for chain in found if chain.state == state] if state in STATES else found
    design, _ = batch_design(first.pk)
    rows = [{**row, "shown": _answers(design, row["item"], row["answer"])} for row in rows]
    return render(request, "designs/chains.html", {
        "batch": first, "report": workflow_report(first), "rows": rows, "chains": shown[:500],
        "state": state, "states": STATES, "counts": [(value, sum(chain.state == value for chain in found))
                                                     for value in STATES]})


@role_required(REVIEWER)
def chain_detail(request, batch_id, origin):
    """One chain's lineage: the first item, then every answer on it and on the items made from it, in order."""
    batch = access.get_or_404(request.user, Batch.objects.filter(task_type="design"), access.REVIEW, pk=batch_id)
    stages = workflow_batches(batch)
    first = next(iter(stages.values()))
    rows = waiting(first) if len(stages) > 1 else []
    found = chains(first, origin=origin, waiting=rows) if len(stages) > 1 else []
    if not found:
        raise Http404("no chain starts at that item in this workflow")
    chain = found[0]
    design, _ = batch_design(first.pk)
    steps = [{"step": step, "answers": _answers(design, step.item, step.answer)} for step in chain.steps]
    start = record(chain.origin)
    # Fields kept for the machine (a suggestion, a dialogue's turns as they came: "_" names) are not shown.
    fields = [(name, " ".join(map(str, value)) if isinstance(value, list) else value)
              for name, value in start.fields.items() if not name.startswith("_")]
    return render(request, "designs/chain.html", {
        "batch": first, "chain": chain, "origin": start, "fields": fields, "steps": steps,
        "waiting": any(row["origin"] == chain.origin.pk for row in rows)})


def _answers(design, item, answer):
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    return [_shown(schemes.get(name), item, value) for name, value in answer.items()]


def _shown(scheme, item, value):
    """An answer as the lineage page shows it: a prefilled text (an edited ending) as a word diff of the start."""
    start = prefill(scheme, record(item)) if isinstance(scheme, Text) else []
    if start and isinstance(value, dict):
        return {"name": scheme.name, "diff": word_diff(start, list(value.values()))}
    if isinstance(value, dict):
        value = " · ".join(f"{key}: {part}" for key, part in value.items())
    elif isinstance(value, list):
        value = ", ".join(map(str, value))
    return {"name": scheme.name if scheme else "", "value": value}
