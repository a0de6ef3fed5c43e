"""Dataset versions: frozen snapshots of labeled sentences and spans with the
configuration that made them, so an export can be reproduced exactly later."""

from django.conf import settings
from django.db import models

from annotation.models import span_offset_constraints


class DatasetVersion(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # Where the labels came from and how the split was made: {"source", "aggregation_run", "rules", "seed",
    # "test_share", "stratify", "group"}.
    config = models.JSONField(default=dict)
    split_report = models.JSONField(default=dict)
    # Filled by later steps: {"baselines": {...}, "export": {...}}
    results = models.JSONField(default=dict, blank=True)

    def __str__(self):
        return self.name


class Split(models.TextChoices):
    TRAIN = "train"
    TEST = "test"


class DatasetSentence(models.Model):
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="sentences")
    sentence_id = models.CharField(max_length=100)
    text = models.TextField()
    label = models.PositiveSmallIntegerField()
    split = models.CharField(max_length=5, choices=Split.choices)
    domain = models.CharField(max_length=20, blank=True)
    document = models.CharField(max_length=200, blank=True)
    votes_yes = models.PositiveSmallIntegerField(null=True)
    votes_no = models.PositiveSmallIntegerField(null=True)
    outcome = models.CharField(max_length=20, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "sentence_id"], name="datasetsentence_unique"),
            models.CheckConstraint(condition=models.Q(label__in=(0, 1)), name="datasetsentence_label_0_or_1"),
        ]

    def __str__(self):
        return f"{self.sentence_id} ({self.label})"


class DatasetSpan(models.Model):
    """Subtask-2 row; offsets as released (end inclusive; -1/-1 without a consequent)."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="spans")
    sentence_id = models.CharField(max_length=100)
    text = models.TextField()
    split = models.CharField(max_length=5, choices=Split.choices)
    antecedent_start = models.IntegerField()
    antecedent_end = models.IntegerField()
    consequent_start = models.IntegerField(default=-1)
    consequent_end = models.IntegerField(default=-1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "sentence_id"], name="datasetspan_unique"),
            *span_offset_constraints("datasetspan", antecedent_required=True),
        ]

    def __str__(self):
        return f"{self.sentence_id} spans"
