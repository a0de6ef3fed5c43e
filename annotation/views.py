"""The organizer's review of span annotations: a filtered queue and one page per sentence."""

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Subquery
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts import access
from accounts.roles import REVIEWER, role_required
from annotation import services
from annotation.models import SpanAnnotation, SpanAnswer
from core import spans
from core.ids import object_id
from hits.models import Worker
from hits.services import CrowdError

FILTERS = {
    "unreviewed": {"state": SpanAnnotation.State.UNREVIEWED},
    "flagged": {"state": SpanAnnotation.State.UNREVIEWED, "flagged": True},
    "accepted": {"state": SpanAnnotation.State.ACCEPTED},
    "removed": {"state": SpanAnnotation.State.REMOVED},
    "all": {},
}


def _reviewable(user):
    """The span annotations the user may review: their projects' (accounts.access)."""
    return access.rows(user, SpanAnnotation.objects.all(), access.REVIEW)


def _queue(user, params):
    """The annotations a filter selects, and the filter as cleaned query parameters."""
    show = params.get("show") if params.get("show") in FILTERS else "unreviewed"
    annotations = _reviewable(user).filter(**FILTERS[show])
    cleaned = {"show": show}
    # A worker's annotations are those of the sentences they answered, alone or with others.
    for field, name in (("item__span_answers__worker_id", "worker"), ("item__batch_id", "batch")):
        value = object_id(params.get(name))
        if value:
            annotations = annotations.filter(**{field: value})
            cleaned[name] = str(value)
    return annotations.distinct().order_by("pk"), cleaned


def pieces(annotation, text=None):
    """The sentence cut into (text, "ant" / "con" / "") runs, for showing both spans of an annotation or of
    one answer (`text` then gives the sentence)."""
    text = annotation.text if text is None else text
    marks = [""] * len(text)
    for kind, start, end in (("ant", annotation.antecedent_start, annotation.antecedent_end),
                             ("con", annotation.consequent_start, annotation.consequent_end)):
        for index in range(max(start, 0), end + 1 if start >= 0 else 0):
            marks[index] = kind
    runs = []
    for char, mark in zip(text, marks, strict=True):
        if runs and runs[-1][1] == mark:
            runs[-1][0] += char
        else:
            runs.append([char, mark])
    return runs


@role_required(REVIEWER)
def review_list(request):
    annotations, cleaned = _queue(request.user, request.GET)
    # A subquery: the worker filter's join would count only that worker's answers.
    answers = SpanAnswer.objects.filter(item=OuterRef("item")).values("item").annotate(n=Count("pk")).values("n")
    annotations = annotations.annotate(answer_count=Subquery(answers))
    page = Paginator(annotations.select_related("worker__user", "item__batch"), 50).get_page(request.GET.get("page"))
    reviewable = _reviewable(request.user)
    counts = {name: reviewable.filter(**query).count() for name, query in FILTERS.items()}
    workers = (Worker.objects.filter(span_answers__item__span_annotation__in=reviewable).distinct()
               .select_related("user").order_by("pk"))
    return render(request, "annotation/review_list.html", {
        "page": page, "rows": [(a, pieces(a)) for a in page], "counts": counts, "cleaned": cleaned,
        "query": urlencode(cleaned), "workers": workers})


@role_required(REVIEWER)
def review_detail(request, annotation_id):
    annotation = access.get_or_404(request.user, SpanAnnotation.objects.select_related("worker__user", "item__batch"),
                                   access.REVIEW, pk=annotation_id)
    queue, cleaned = _queue(request.user, request.GET)
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            # Accepting without marked words keeps the spans the annotation has (the service says if it has none).
            antecedent = consequent = None
            if action == "accept" and request.POST.get("ant-review", "").strip():
                antecedent, consequent = spans.read_fields(annotation.text, request.POST["ant-review"],
                                                           request.POST.get("con-review"),
                                                           request.POST.get("nocon-review") == "1")
            services.span_review(annotation=annotation, user=request.user, action=action,
                                 antecedent=antecedent, consequent=consequent, note=request.POST.get("note", ""))
        except (spans.SpanError, CrowdError) as error:
            messages.error(request, f"Annotation {annotation.pk}: {error}")
            return redirect(f"{reverse('annotation:review', args=[annotation.pk])}?{urlencode(cleaned)}")
        annotation.refresh_from_db()
        messages.success(request, f"Annotation {annotation.pk}: {annotation.state}.")
        following = queue.filter(pk__gt=annotation.pk).first()
        target = reverse("annotation:review", args=[following.pk]) if following else reverse("annotation:review_list")
        return redirect(f"{target}?{urlencode(cleaned)}")
    antecedent = spans.word_range(annotation.text, annotation.antecedent_start, annotation.antecedent_end)
    consequent = spans.word_range(annotation.text, annotation.consequent_start, annotation.consequent_end)
    answers = services.span_answers(annotation)
    for row in answers["rows"]:
        row["pieces"] = pieces(row["answer"], annotation.text)
    majority = pieces(answers["majority"], annotation.text) if answers["majority"] else None
    return render(request, "annotation/review_detail.html", {
        "annotation": annotation, "answers": answers, "majority": majority, "words": spans.words(annotation.text),
        "pieces": pieces(annotation),
        "ant": ":".join(map(str, antecedent)) if antecedent else "",
        "con": ":".join(map(str, consequent)) if consequent else "",
        "nocon": antecedent is not None and consequent is None,
        "changes": annotation.changes.select_related("user", "worker__user"), "query": urlencode(cleaned),
        "position": queue.filter(pk__lt=annotation.pk).count() + 1 if queue.filter(pk=annotation.pk).exists()
        else None, "queue_size": queue.count(), "show": cleaned["show"]})
