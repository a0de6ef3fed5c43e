"""The reviewer's page of the writing-evidence component: every submission's written answers with how they were
written, the ones most worth a look first. Nothing here rejects anything; the review form of the batch page
does, by a person."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from accounts.roles import ORGANIZER, role_required
from designs.evidence import canary_word, card
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
