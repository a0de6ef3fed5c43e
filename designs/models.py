"""Design files as rows: every version an organizer saved, and which version each batch was made from.

A version is never changed once a batch uses it: editing a design saves a new version, so the answers of a
batch keep the design they were given under (their schemes, labels and rules).
"""

from datetime import datetime
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.functional import cached_property

from designs.conditions import Conditions
from designs.items import MODEL
from designs.loader import load_text
from designs.model import Design
from hits.models import Assignment, Batch


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
    # A model's answers shown to people as suggestions (designs.suggestions): {"annotator", "holdout", "since",
    # "until"}; empty when the batch shows none.
    suggest = models.JSONField(default=dict, blank=True)
    # A model's answers counted as one more voter by adaptive redundancy (designs.model_votes): {"annotator",
    # "min_confidence", "min_people"}; empty when none are.
    model_vote = models.JSONField(default=dict, blank=True)

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

    MODEL = MODEL  # the source of a language model's answers (designs.model_runs, a Label Studio prediction)

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="outside_answers")
    item = models.ForeignKey("hits.Item", on_delete=models.CASCADE, related_name="outside_answers")
    source = models.CharField(max_length=40, help_text="where the answers were given: labelstudio")
    annotator = models.CharField(max_length=200, help_text="who gave them there, as that tool names them")
    answers = models.JSONField(help_text="{scheme: value}, read by the scheme types as a form's answers are")
    given = models.DateTimeField(null=True, blank=True, help_text="when they were given there, if it says")
    meta = models.JSONField(default=dict, blank=True, help_text="a model's answer: its tokens, cost and seconds")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item_id", "pk"]
        constraints = [models.UniqueConstraint(fields=["item", "source", "annotator"],
                                               name="outside_answer_once_an_annotator")]

    def __str__(self):
        return f"{self.source}:{self.annotator} on item {self.item_id}"

    @classmethod
    def model_names(cls, batch: Batch) -> list[str]:
        """The models that answered `batch`, as annotators, the last to answer first."""
        # One row a model, not one an answer: the batch page asks on every view, whatever the batch's size.
        return list(cls.objects.filter(batch=batch, source=cls.MODEL).values("annotator")
                    .annotate(last=models.Max("pk")).order_by("-last").values_list("annotator", flat=True))

    @classmethod
    def model_named(cls, batch: Batch, annotator: str = "") -> str:
        """The model, as an annotator, whose answers to `batch` are meant: `annotator`, or the last to answer.
        Raises CrowdError, saying what to run, when no such model answered it."""
        from hits.services.errors import CrowdError

        names = cls.model_names(batch)
        if not names:
            raise CrowdError(f"no model has answered batch {batch.pk}: run `manage.py design ask-model {batch.pk} "
                             f"...` first")
        if annotator and annotator not in names:
            raise CrowdError(f"no model {annotator!r} answered batch {batch.pk}; those that did: {', '.join(names)}")
        return annotator or names[0]


class ConditionCell(models.Model):
    """The cell of a design's between-subjects conditions a worker was given in a batch (designs.conditions): kept,
    so each of their pages in the batch shows the same condition and each of their answers is read with it."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="condition_cells")
    worker = models.ForeignKey("hits.Worker", on_delete=models.CASCADE, related_name="condition_cells")
    levels = models.JSONField(help_text="{factor: level}")
    cell = models.PositiveIntegerField(help_text="its place among the design's cells")
    ordinal = models.PositiveIntegerField(help_text="the worker's arrival in the batch, from 0")
    cell_ordinal = models.PositiveIntegerField(help_text="their arrival in the cell, from 0")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch_id", "ordinal"]
        constraints = [models.UniqueConstraint(fields=["batch", "worker"], name="condition_cell_once_a_worker")]

    def __str__(self):
        return f"{self.worker_id} in batch {self.batch_id}: {self.levels}"

    @classmethod
    def levels_of(cls, batch_id: int, worker_id: int) -> dict[str, str] | None:
        """The cell a worker was given in a batch, or None when they were given none (yet)."""
        return cls.objects.filter(batch_id=batch_id, worker_id=worker_id).values_list("levels", flat=True).first()

    @classmethod
    def give(cls, batch: Batch, worker: Any, conditions: Conditions) -> dict[str, str]:
        """The worker's cell in `batch`, given now (designs.conditions) if they have none: once, whoever else
        arrives at the same moment, since the batch's row is locked while its cells are counted."""
        given = cls.levels_of(batch.pk, worker.pk)
        if given is not None:
            return given
        with transaction.atomic():
            Batch.objects.select_for_update().filter(pk=batch.pk).first()
            kept = cls.objects.filter(batch=batch)
            found = kept.filter(worker=worker).first()
            if found is not None:
                return found.levels
            if conditions.balance_on == "completed":
                kept = kept.filter(worker__in=Assignment.objects.filter(
                    hit__batch=batch, state__in=Assignment.DONE_STATES).values("worker"))
            cells = conditions.all_cells()
            counts = [0] * len(cells)
            for place in kept.values_list("cell", flat=True):
                counts[place] += 1
            ordinal = cls.objects.filter(batch=batch).count()
            place = conditions.choose(worker.external_id or str(worker.pk), ordinal, counts)
            made = cls.objects.create(batch=batch, worker=worker, levels=cells[place].levels, cell=place,
                                      ordinal=ordinal, cell_ordinal=cls.objects.filter(batch=batch, cell=place).count())
        return made.levels


class SharedEvent(models.Model):
    """An event kept above the documents of a batch, shared by everyone who works on it (Potato's event registry,
    for a multi_document_event scheme): a title, a value for each of the scheme's slots, the documents (items) that
    belong to it and the evidence cited for its slots, each a span of one document. Any worker of the batch may
    change it; a change made on a version another has changed since is refused (`version`)."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="shared_events")
    scheme = models.CharField(max_length=60)
    key = models.CharField(max_length=64, help_text="its id, as Potato's: evt_ and 12 hex digits, or a seed's own")
    template_name = models.CharField(max_length=200, blank=True)
    title = models.CharField(max_length=500, blank=True)
    slot_values = models.JSONField(default=dict, blank=True)
    members = models.JSONField(default=list, blank=True, help_text="the ids of the documents (items) in it")
    evidence = models.JSONField(default=list, blank=True, help_text="[{slot_name, doc_id, span_start, span_end, "
                                                                    "quoted_text, created_by, created_at}]")
    created_by = models.ForeignKey("hits.Worker", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="shared_events")
    seeded = models.BooleanField(default=False, help_text="given by the design (seed_events), not by a worker")
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["batch_id", "scheme", "pk"]
        constraints = [models.UniqueConstraint(fields=["batch", "scheme", "key"], name="shared_event_key_once")]

    def __str__(self):
        return f"{self.key} ({self.title or 'untitled'}) in batch {self.batch_id}"

    @classmethod
    def seed(cls, batch: Batch, scheme: Any) -> None:
        """The scheme's seed events (the design's), made with the batch, before anyone works on it."""
        SharedEvent.objects.bulk_create([
            SharedEvent(batch=batch, scheme=scheme.name, key=key, title=given.title, slot_values=given.slot_values,
                        template_name=given.template_name or scheme.template_name, members=given.member_doc_ids,
                        seeded=True, evidence=[citation.model_dump() for citation in given.evidence])
            for key, given in zip(scheme.seed_ids(), scheme.seed_events, strict=True)])

    def as_potato(self, names: dict[int, str]) -> dict[str, Any]:
        """The event as Potato's registry keeps it (event_registry.json); workers named by `names` (pseudonyms)."""
        return {"id": self.key, "template_name": self.template_name, "title": self.title,
                "slot_values": self.slot_values, "member_doc_ids": self.members,
                "evidence": [{**citation, "created_by": names.get(citation.get("created_by"), "")
                              if isinstance(citation.get("created_by"), int) else citation.get("created_by", "")}
                             for citation in self.evidence],
                "created_by": names.get(self.created_by_id, "") if self.created_by_id else "",
                "provenance": "seeded" if self.seeded else "annotator",
                "created_at": self.created.isoformat(), "updated_at": self.updated.isoformat()}


class ModelRun(models.Model):
    """One run of a language model over a batch's items (designs.model_runs): who it is as an annotator, what it
    cost and what it refused. Its answers are OutsideAnswers of source "model" under `annotator`; a run again with the
    same model, endpoint and prompt goes on where the last stopped (an item is answered once)."""

    class State(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="model_runs")
    annotator = models.CharField(max_length=200, help_text="model @ endpoint host · prompt version")
    model = models.CharField(max_length=200)
    url = models.CharField(max_length=500, help_text="the endpoint's base URL (never its key)")
    prompt_version = models.CharField(max_length=16)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    items = models.PositiveIntegerField(default=0, help_text="items asked in this run")
    answered = models.PositiveIntegerField(default=0)
    refused = models.JSONField(default=list, blank=True, help_text="[{item, reason, raw}] of answers not stored")
    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    estimate = models.DecimalField(max_digits=12, decimal_places=6, default=0, help_text="the most it could cost")
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0, help_text="by the tokens it used")
    seconds = models.FloatField(default=0, help_text="time spent waiting on the model, summed over answers")
    error = models.TextField(blank=True)
    started = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True, help_text="when the running process last wrote to it")
    lease_seconds = models.PositiveIntegerField(
        default=900, help_text="how long a running run may go without writing before its process is taken for dead")

    class Meta:
        ordering = ["-started"]

    def __str__(self):
        return f"{self.annotator} on batch {self.batch_id}: {self.state}"

    def stale(self, now: datetime | None = None) -> bool:
        """A running run whose process has written nothing for longer than its lease (an answer, at the slowest,
        comes well within it): killed, not still asking. Its most cost is no longer promised."""
        last = self.heartbeat or self.started
        return self.state == self.State.RUNNING and last is not None and (
            (now or timezone.now()) - last).total_seconds() > self.lease_seconds


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
