from django.conf import settings
from django.db import models

from aggregation import maths
from hits.models import Assignment, Batch, Item, Worker


class AggregationRun(models.Model):
    """One aggregation of a batch's votes, with the rules it used and its results."""

    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="aggregations")
    created = models.DateTimeField(auto_now_add=True)
    # "paper" (the agreement rules in `rules`) or a truth-inference method of aggregation.methods.
    method = models.CharField(max_length=20, default="paper")
    rules = models.JSONField()
    rules_text = models.TextField()
    votes = models.PositiveIntegerField()
    alpha = models.FloatField(null=True)
    alpha_low = models.FloatField(null=True)
    alpha_high = models.FloatField(null=True)
    # {"outcomes": {...}, "partial_negatives": {"found", "kept"}, "by_domain": {...}, "by_hit": {...},
    #  "gold": {"items", "correct", "accuracy"}}
    summary = models.JSONField(default=dict)

    class Meta:
        get_latest_by = "created"

    def __str__(self):
        return f"aggregation {self.pk} of {self.batch}"


class ItemOutcome(models.Model):
    class Outcome(models.TextChoices):
        POSITIVE = maths.POSITIVE
        NEGATIVE_100 = maths.NEGATIVE_100
        NEGATIVE_80 = maths.NEGATIVE_80
        DISCARDED = maths.DISCARDED
        PENDING = maths.PENDING
        NEGATIVE = maths.NEGATIVE

    run = models.ForeignKey(AggregationRun, on_delete=models.CASCADE, related_name="outcomes")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="outcomes")
    yes = models.PositiveSmallIntegerField()
    no = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=20, choices=Outcome.choices, db_index=True)
    # The item's label under the run's method (None while pending or discarded) and the method's
    # confidence in it: the agreeing share of the votes for the rules, the posterior for the models.
    label = models.SmallIntegerField(null=True)
    confidence = models.FloatField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "item"], name="itemoutcome_unique_item")]

    def __str__(self):
        return f"{self.item}: {self.outcome} ({self.yes}/{self.yes + self.no})"


class WorkerStat(models.Model):
    run = models.ForeignKey(AggregationRun, on_delete=models.CASCADE, related_name="worker_stats")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="stats")
    votes = models.PositiveIntegerField()
    consensus_accuracy = models.FloatField(null=True)
    consensus_votes = models.PositiveIntegerField()
    gold_accuracy = models.FloatField(null=True)
    gold_votes = models.PositiveIntegerField()
    confusion = models.JSONField(default=dict)
    # The method's estimate of the worker's reliability in [0, 1] (None for the paper's rules).
    skill = models.FloatField(null=True)

    class Meta:
        ordering = ["-consensus_accuracy"]

    def __str__(self):
        return f"{self.worker} in {self.run}"


class SpotCheck(models.Model):
    """A submitted HIT drawn at random for an organizer to review."""

    class Decision(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="spot_check")
    drawn = models.DateTimeField(auto_now_add=True)
    decision = models.CharField(max_length=20, choices=Decision.choices, default=Decision.PENDING)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    decided = models.DateTimeField(null=True, blank=True)
    feedback = models.TextField(blank=True)
    # Share of the worker's answers in this HIT that match the consensus / gold, at draw time, and
    # over all answers (gold where the item has it, consensus elsewhere): the figure decisions use.
    consensus_accuracy = models.FloatField(null=True)
    gold_accuracy = models.FloatField(null=True)
    accuracy = models.FloatField(null=True)

    def __str__(self):
        return f"spot check of {self.assignment}"
