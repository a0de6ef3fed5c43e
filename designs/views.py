"""The organizer's pages of design batches: the writing-evidence component's review (every submission's written
answers with how they were written, the ones most worth a look first; nothing here rejects anything, the review
form of the batch page does, by a person), and a multi-stage design's chains that used their rounds."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from accounts.roles import ORGANIZER, role_required
from core.errors import CrowdsetError
from designs.evidence import canary_word, card
from designs.stages import chain_decide, workflow_batches
from designs.stages import waiting_chains as waiting
from designs.task_type import batch_design
from hits.models import Assignment, Batch, Item


@role_required(ORGANIZER)
def writing_review(request, batch_id):
    batch = get_object_or_404(Batch, pk=batch_id, task_type="design")
    design, _ = batch_design(batch.pk)
    if "writing-evidence" not in design.components:
        raise Http404("this batch's design does not record writing evidence")
    text_schemes = {str(index) for index, scheme in enumerate(design.annotation_schemes)
                    if scheme.annotation_type == "text"}
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


@role_required(ORGANIZER)
def waiting_chains(request, batch_id):
    """GET: the chains of the workflow that used their rounds. POST (origin, decision): the organizer's word."""
    batch = get_object_or_404(Batch, pk=batch_id, task_type="design")
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
    return render(request, "designs/waiting_chains.html", {"batch": first, "stages": stages,
                                                            "rows": waiting(first)})
