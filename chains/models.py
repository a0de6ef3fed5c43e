"""A workflow is stages joined by edges; each stage is a batch. A chain follows one story through them, and
its steps are the lineage: which item, stage, round and worker produced each output."""

from django.db import models

from hits.models import Assignment, Batch, Item, Worker


class Workflow(models.Model):
    name = models.CharField(max_length=200, unique=True)
    design = models.CharField(max_length=40, default="timetravel")
    # Failed checks a chain may have before it goes to the organizer instead of another rewrite.
    loop_limit = models.PositiveSmallIntegerField(default=2)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name

    def stage(self, key):
        return self.stages.select_related("batch").get(key=key)


class Stage(models.Model):
    """One stage: its batch (task type, assignments, pay, filters) and the edge out of it. `gate` says that
    the next stage's worker first checks this stage's output, and sends it back to be rewritten if it fails."""

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="stages")
    key = models.CharField(max_length=40)
    order = models.PositiveSmallIntegerField()
    batch = models.OneToOneField(Batch, on_delete=models.PROTECT, related_name="stage")
    feeds = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="fed_by")
    gate = models.BooleanField(default=False)
    # Why items made for this stage wait unpublished (the budget, a provider error); empty when none wait.
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["workflow", "order"]
        constraints = [models.UniqueConstraint(fields=["workflow", "key"], name="stage_unique_key")]

    def __str__(self):
        return f"{self.workflow.name}: {self.key}"


class Chain(models.Model):
    """One counterfactual's way through the workflow, from the writer to the edited endings."""

    class State(models.TextChoices):
        CHECKING = "checking"  # its counterfactual waits for a checker
        EDITED = "edited"  # a checker passed it and edited the ending
        REVIEW = "review"  # sent back more often than the loop limit: the organizer decides
        DROPPED = "dropped"  # the organizer dropped it

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="chains")
    story_id = models.CharField(max_length=100)
    story = models.JSONField()  # the five sentences as read (core.stories.Story)
    state = models.CharField(max_length=20, choices=State.choices, default=State.CHECKING)
    rounds = models.PositiveSmallIntegerField(default=0)  # times its counterfactual was sent back
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workflow", "story_id", "pk"]

    def __str__(self):
        return f"chain {self.pk} of story {self.story_id}"


class Step(models.Model):
    """One output in a chain and who made it where: the lineage."""

    class Kind(models.TextChoices):
        COUNTERFACTUAL = "counterfactual"  # written in the write stage
        PASSED = "passed"  # a checker found the counterfactual fine
        FAILED = "failed"  # a checker found it broke a condition
        REWRITE = "rewrite"  # the counterfactual as that checker rewrote it
        ENDING = "ending"  # the edited ending, answering `answers`
        ORGANIZER = "organizer"  # the organizer's decision on a chain in review

    chain = models.ForeignKey(Chain, on_delete=models.CASCADE, related_name="steps")
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.PROTECT)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    round = models.PositiveSmallIntegerField(default=0)
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.PROTECT, related_name="chain_steps")
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.PROTECT)
    worker = models.ForeignKey(Worker, null=True, blank=True, on_delete=models.PROTECT)
    # The counterfactual (text), the checks ({"related": true, ...}), the ending (three sentences), or the
    # organizer's note.
    value = models.JSONField()
    # The step this one answers: an ending or a check answers the counterfactual (or rewrite) it was shown.
    answers = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="answered_by")
    # Word edits of an ending against the original ({"distance": .., "original_words": .., "kept": ..}).
    edit = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["chain", "pk"]
        constraints = [
            # A submission is turned into steps once, however often its on_submitted runs.
            models.UniqueConstraint(fields=["assignment", "item", "kind"], name="step_once_per_answer"),
        ]

    def __str__(self):
        return f"{self.kind} (round {self.round}) in {self.chain}"
