"""Span annotations (Subtask 2) and their review history."""

from django.conf import settings
from django.db import models

from hits.models import Assignment, Item, Worker


def span_offset_constraints(prefix: str, *, antecedent_required: bool) -> list[models.CheckConstraint]:
    """Offsets as released: start ≤ end, both -1 where a span is absent (the antecedent may be absent
    only where `antecedent_required` is false: a sentence flagged as not counterfactual has none)."""
    Q, F = models.Q, models.F

    def span(name: str, required: bool) -> models.Q:
        present = Q(**{f"{name}_start__gte": 0, f"{name}_start__lte": F(f"{name}_end")})
        return present if required else present | Q(**{f"{name}_start": -1, f"{name}_end": -1})

    return [models.CheckConstraint(condition=span("antecedent", antecedent_required), name=f"{prefix}_antecedent"),
            models.CheckConstraint(condition=span("consequent", False), name=f"{prefix}_consequent")]


class SpanAnswer(models.Model):
    """One annotator's answer for one sentence, as submitted (never changed).

    A span batch asks `assignments_per_hit` annotators per sentence: one in the paper, two or more when the
    organizer wants span agreement and a majority to start the review from.
    """

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="span_answers")
    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="span_answers")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="span_answers")
    counterfactual = models.BooleanField()
    reason = models.TextField(blank=True)
    antecedent_start = models.IntegerField(default=-1)
    antecedent_end = models.IntegerField(default=-1)
    consequent_start = models.IntegerField(default=-1)
    consequent_end = models.IntegerField(default=-1)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["item", "assignment"], name="span_answer_once"),
                       *span_offset_constraints("spananswer", antecedent_required=False)]

    def __str__(self):
        return f"span answer of {self.worker} for {self.item}"

    def spans(self):
        return [self.antecedent_start, self.antecedent_end, self.consequent_start, self.consequent_end]


class SpanAnnotation(models.Model):
    """A sentence's spans, as the organizers last left it: the one annotator's answer, or with several the
    majority of their answers (`core.spans.majority_spans`) until someone reviews it.

    Offsets are character offsets into `text` (the stored sentence), end
    inclusive, -1/-1 where absent. Every change is a SpanChange row: this row
    is the latest state, never the only record of an earlier one. The answers
    it came from are the item's SpanAnswer rows.
    """

    class State(models.TextChoices):
        UNREVIEWED = "unreviewed"
        ACCEPTED = "accepted"
        REMOVED = "removed"  # not counterfactual: out of Subtask 2 and of the Subtask-1 positives

    # One row per Subtask-2 item, however many annotated it.
    item = models.OneToOneField(Item, on_delete=models.PROTECT, related_name="span_annotation")
    # The Subtask-1 item whose positive outcome sent the sentence here.
    source_item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="span_annotations")
    # The answer the spans are from; null when they are the majority of several answers.
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="span_annotations")
    worker = models.ForeignKey(Worker, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="span_annotations")
    text = models.TextField()
    # The annotators' double check: a flag for the organizers when any of them says it is not counterfactual.
    flagged = models.BooleanField(default=False)
    flag_reason = models.TextField(blank=True, help_text="why the annotator says it is not counterfactual")
    antecedent_start = models.IntegerField(default=-1)
    antecedent_end = models.IntegerField(default=-1)
    consequent_start = models.IntegerField(default=-1)
    consequent_end = models.IntegerField(default=-1)
    state = models.CharField(max_length=20, choices=State.choices, default=State.UNREVIEWED, db_index=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    reviewed = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = span_offset_constraints("spanannotation", antecedent_required=False)

    def __str__(self):
        return f"spans of {self.item} ({self.state})"

    def spans(self):
        return [self.antecedent_start, self.antecedent_end, self.consequent_start, self.consequent_end]

    @property
    def antecedent(self):
        return self.text[self.antecedent_start:self.antecedent_end + 1] if self.antecedent_start >= 0 else ""

    @property
    def consequent(self):
        return self.text[self.consequent_start:self.consequent_end + 1] if self.consequent_start >= 0 else ""


class SpanChange(models.Model):
    """Who changed a span annotation, when, and from what to what."""

    class Action(models.TextChoices):
        SUBMITTED = "submitted"
        ADJUSTED = "adjusted"
        ACCEPTED = "accepted"
        REMOVED = "removed"

    annotation = models.ForeignKey(SpanAnnotation, on_delete=models.CASCADE, related_name="changes")
    action = models.CharField(max_length=20, choices=Action.choices)
    # The annotator's submission has a worker; a review has an organizer.
    worker = models.ForeignKey(Worker, null=True, blank=True, on_delete=models.SET_NULL)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True)
    # {"state", "flagged", "spans": [a_start, a_end, c_start, c_end]} before and after.
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField()
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.action} {self.annotation_id} at {self.at:%Y-%m-%d %H:%M}"
