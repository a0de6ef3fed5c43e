"""The reviewer's page for a writing batch: every submission's statements with their writing-behaviour
evidence, the ones most worth a look first. Nothing here rejects anything; the review form of the batch
page does, by a person."""

from django.shortcuts import get_object_or_404, render

from accounts.roles import ORGANIZER, role_required
from facts.evidence import canary_word, card
from hits.models import Assignment, Batch, Item


@role_required(ORGANIZER)
def writing_review(request, batch_id):
    batch = get_object_or_404(Batch, pk=batch_id, task_type="facts")
    paragraphs = {str(item.pk): item.content.text for item in Item.objects.filter(batch=batch)}
    rows = []
    for assignment in (Assignment.objects.filter(hit__batch=batch).exclude(submitted=None)
                       .select_related("worker__user", "hit").prefetch_related("hit__hit_items").order_by("pk")):
        raw = assignment.raw_answers or {}
        sources = {name: paragraphs[name.split("-")[1]] for name in sorted(raw)
                   if name.startswith("fact-") and name.count("-") == 2 and name.split("-")[1] in paragraphs}
        shown = [hit_item.item_id for hit_item in assignment.hit.hit_items.all()]
        rows.append({"assignment": assignment, "card": card(raw, sources, canary_word(shown))})
    rows.sort(key=lambda row: (row["card"].suspicion, row["assignment"].pk))
    return render(request, "facts/writing_review.html", {"batch": batch, "rows": rows})
