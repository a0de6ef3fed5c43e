"""The screening test: versions, items with known answers, attempts and grants."""

from django.db import models
from django.utils import timezone

from hits.models import Worker


class QualificationTest(models.Model):
    name = models.SlugField(max_length=60)
    version = models.PositiveSmallIntegerField(default=1)
    title = models.CharField(max_length=200)
    instructions = models.TextField()
    # [{"sentence", "answer": 0/1, "why"}]: worked examples shown before the items.
    examples = models.JSONField(default=list)
    pass_threshold = models.PositiveSmallIntegerField(default=80, help_text="percent correct needed to pass")
    duration = models.PositiveIntegerField(default=45 * 60, help_text="seconds to finish an attempt")
    retake_delay = models.PositiveIntegerField(default=24 * 3600, help_text="seconds before a failed worker retries")
    mturk_qualification_type_id = models.CharField(max_length=64, blank=True)
    # The test at providers that run it as a study of its own, e.g. {"prolific": {"study_id", "group_id",
    # "pass_code", "fail_code"}}.
    provider_state = models.JSONField(default=dict, blank=True)
    # A test of any design (a Potato project's training round): the design file whose schemes it asks, each item
    # shown as the design's task page shows it. Empty: the SemEval test, counterfactual or not.
    design_source = models.TextField(blank=True, default="")
    # A practice round asked one item at a time with feedback after each answer (qualification.practice.Practice,
    # a Potato project's training settings). Empty: every item on one page, feedback after the test.
    practice = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="qualificationtest_unique_version")]

    def __str__(self):
        return f"{self.name} v{self.version}"


class TestItem(models.Model):
    __test__ = False  # a model, not a pytest test class

    test = models.ForeignKey(QualificationTest, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    sentence_id = models.CharField(max_length=40, help_text="id in the released file it was drawn from")
    text = models.TextField()
    answer = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 counterfactual, 0 not (SemEval)")
    # A design test's item: {"id", "text", "fields"}, and its answers, {scheme: value}.
    record = models.JSONField(default=dict, blank=True)
    answers = models.JSONField(default=dict, blank=True)
    rows = models.JSONField(default=list, blank=True, help_text="Table 5 rows the sentence matches")
    # Shown with the worker's answer after grading, pass or fail: the test teaches as it screens.
    why = models.TextField(blank=True, help_text="why the answer is what it is, shown after grading")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["test", "position"], name="testitem_unique_position"),
            models.CheckConstraint(condition=models.Q(answer__in=(0, 1)), name="testitem_answer_0_or_1"),
        ]

    def __str__(self):
        return f"{self.test} #{self.position}"


class Attempt(models.Model):
    test = models.ForeignKey(QualificationTest, on_delete=models.CASCADE, related_name="attempts")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualification_attempts")
    started = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    submitted = models.DateTimeField(null=True, blank=True)
    answers = models.JSONField(null=True, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    passed = models.BooleanField(null=True)
    # A practice round's way through its items (qualification.practice: the item it is at, the items right, the
    # mistakes, the round, what the last answer was told, and how it ended).
    progress = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["test", "worker"], condition=models.Q(submitted=None),
                                               name="attempt_one_open")]

    def __str__(self):
        return f"{self.worker} on {self.test}"


class Grant(models.Model):
    """A worker passed a version of a test. Revoking keeps the row, with when and why."""

    test = models.ForeignKey(QualificationTest, on_delete=models.CASCADE, related_name="grants")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="grants")
    score = models.PositiveSmallIntegerField()
    granted = models.DateTimeField(default=timezone.now)
    revoked = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["test", "worker"], name="grant_unique_worker")]

    def __str__(self):
        return f"{self.worker}: {self.test} {self.score}%"
