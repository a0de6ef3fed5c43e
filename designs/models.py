"""Design files as rows: every version an organizer saved, and which version each batch was made from.

A version is never changed once a batch uses it: editing a design saves a new version, so the answers of a
batch keep the design they were given under (their schemes, labels and rules).
"""

from functools import lru_cache

from django.conf import settings
from django.db import models
from django.utils.functional import cached_property

from designs.loader import load_text
from designs.model import Design
from hits.models import Batch


class DesignVersion(models.Model):
    slug = models.SlugField(max_length=60, help_text="the design's name; its versions share it")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    source = models.TextField(help_text="the YAML as it was written")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug", "-number"]
        constraints = [models.UniqueConstraint(fields=["slug", "number"], name="design_version_unique")]

    def __str__(self):
        return f"{self.slug} v{self.number}"

    @cached_property
    def design(self):
        return load_text(self.source, name=f"{self.slug}.yaml")


class DesignBatch(models.Model):
    """The design version (and stage) a batch was made from."""

    batch = models.OneToOneField(Batch, on_delete=models.CASCADE, related_name="design_link")
    version = models.ForeignKey(DesignVersion, on_delete=models.PROTECT, related_name="batches")
    stage = models.CharField(max_length=60, blank=True)
    # A multi-stage design's batches are one workflow: each stage's batch points at the first stage's.
    workflow = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.CASCADE, related_name="stage_links")
    note = models.CharField(max_length=500, blank=True, help_text="why the stage's new HITs wait, if they do")

    def __str__(self):
        return f"{self.batch} from {self.version}"


class ChainDecision(models.Model):
    """The organizer's word on a chain of a multi-stage design that used its rounds: send it back once more, or
    drop it (it stays in the answers and the export, and no longer waits)."""

    class Decision(models.TextChoices):
        AGAIN = "again", "send back once more"
        DROP = "drop", "drop"

    workflow = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="chain_decisions")
    origin = models.ForeignKey("hits.Item", on_delete=models.CASCADE, related_name="chain_decisions")
    round = models.PositiveIntegerField(help_text="the round the chain had used when the decision was taken")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["origin", "round"], name="chain_decision_once_a_round")]

    def __str__(self):
        return f"chain {self.origin_id}, round {self.round}: {self.decision}"


class OutsideAnswer(models.Model):
    """One annotator's answers to one item given outside this site's HITs: a Label Studio task's annotation brought
    in with its project. Reports, agreement and exports read them beside the crowd's (designs.export); they are no
    Assignment, so no HIT place, claim, approval or payment ever sees them."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="outside_answers")
    item = models.ForeignKey("hits.Item", on_delete=models.CASCADE, related_name="outside_answers")
    source = models.CharField(max_length=40, help_text="where the answers were given: labelstudio")
    annotator = models.CharField(max_length=200, help_text="who gave them there, as that tool names them")
    answers = models.JSONField(help_text="{scheme: value}, read by the scheme types as a form's answers are")
    given = models.DateTimeField(null=True, blank=True, help_text="when they were given there, if it says")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item_id", "pk"]
        constraints = [models.UniqueConstraint(fields=["item", "source", "annotator"],
                                               name="outside_answer_once_an_annotator")]

    def __str__(self):
        return f"{self.source}:{self.annotator} on item {self.item_id}"


@lru_cache(maxsize=64)
def _parsed(source: str, slug: str) -> Design:
    # Keyed by the text, not the row id: ids come back after a database is reset, texts mean what they say.
    return load_text(source, name=f"{slug}.yaml")


def batch_design(batch_id: int) -> tuple[Design, str]:
    """The design (and stage, "" for all schemes) a batch was made from."""
    source, slug, stage = DesignBatch.objects.values_list("version__source", "version__slug", "stage").get(
        batch_id=batch_id)
    return _parsed(source, slug), stage


def batch_designs(batch_ids) -> dict[int, tuple[Design, str]]:
    """The design and stage of each design batch among `batch_ids`, for a page listing many batches: one query."""
    return {batch_id: (_parsed(source, slug), stage) for batch_id, source, slug, stage in
            DesignBatch.objects.filter(batch_id__in=batch_ids).values_list(
                "batch_id", "version__source", "version__slug", "stage")}
