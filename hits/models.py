"""Crowd work: batches of items packed into HITs, assignments, workers.

`hits` knows items, not what they mean: an item is a payload the batch's task
type understands (see `hits.task_types`), with an optional known answer.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q, Sum
from django.utils import timezone


class Worker(models.Model):
    provider = models.CharField(max_length=20)
    external_id = models.CharField(max_length=64)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["provider", "external_id"], name="worker_unique_id")]

    def __str__(self):
        # In-house workers are site users: show who. (Select the user with the worker in lists.)
        return f"{self.provider}:{self.user.username if self.user_id else self.external_id}"


class Batch(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft"
        PUBLISHING = "publishing"
        PUBLISHED = "published"
        COMPLETED = "completed"
        EXPIRED = "expired"

    name = models.CharField(max_length=200)
    task_type = models.CharField(max_length=40)
    provider = models.CharField(max_length=20)
    state = models.CharField(max_length=20, choices=State.choices, default=State.DRAFT)
    items_per_hit = models.PositiveSmallIntegerField(default=25)
    assignments_per_hit = models.PositiveSmallIntegerField(default=5)
    gold_rate = models.FloatField(default=0.0)
    seed = models.IntegerField(default=0)
    reward = models.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.50"))
    budget = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    assignment_duration = models.PositiveIntegerField(default=3600, help_text="seconds a worker has to submit")
    lifetime = models.PositiveIntegerField(default=7 * 24 * 3600, help_text="seconds the HITs stay available")
    auto_approval_delay = models.PositiveIntegerField(default=3 * 24 * 3600)
    # {"locales": ["US", ...], "min_approval_rate": 82, "qualification_type": id, "min_score": 80}
    requirements = models.JSONField(default=dict, blank=True)
    # Provider-side state of the batch, e.g. {"hit_type_id": ...} on MTurk.
    provider_state = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)
    published = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "batches"

    def __str__(self):
        return f"{self.name} ({self.task_type}, {self.provider})"

    @property
    def is_complete(self):
        return not self.hits.exclude(state=Hit.State.COMPLETED).exists()

    def spent(self):
        """Money committed so far: approved work (with fees) and bonuses sent."""
        from hits.providers import get_provider

        provider = get_provider(self.provider)
        approved = Assignment.objects.filter(hit__batch=self, state=Assignment.State.APPROVED).count()
        bonuses = Bonus.objects.filter(assignment__hit__batch=self).aggregate(total=Sum("amount"))["total"]
        per_assignment = provider.cost_per_assignment(self.reward, self.assignments_per_hit)
        return approved * per_assignment + (provider.cost_of_bonus(bonuses) if bonuses else Decimal("0"))


class Item(models.Model):
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="items")
    # Who the item stands for outside `hits`, e.g. "candidate:17"; unique per batch.
    key = models.CharField(max_length=100)
    group = models.CharField(max_length=40, blank=True, help_text="interleaving group, e.g. the domain")
    payload = models.JSONField()
    is_gold = models.BooleanField(default=False)
    gold_answer = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "key"], name="item_unique_key")]

    def __str__(self):
        return self.key


class Hit(models.Model):
    class State(models.TextChoices):
        PENDING = "pending"
        PUBLISHED = "published"
        COMPLETED = "completed"
        EXPIRED = "expired"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="hits")
    index = models.PositiveIntegerField()
    items = models.ManyToManyField(Item, through="HitItem", related_name="hits")
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING)
    provider_hit_id = models.CharField(max_length=64, blank=True, db_index=True)
    published = models.DateTimeField(null=True, blank=True)
    expires = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [models.UniqueConstraint(fields=["batch", "index"], name="hit_unique_index")]

    def __str__(self):
        return f"HIT {self.index} of {self.batch.name}"

    def ordered_items(self):
        return [hit_item.item for hit_item in self.hit_items.select_related("item").order_by("position")]

    def live_assignments(self):
        return self.assignments.exclude(state__in=Assignment.DEAD_STATES)


class HitItem(models.Model):
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="hit_items")
    item = models.ForeignKey(Item, on_delete=models.CASCADE)
    position = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hit", "item"], name="hititem_unique_item"),
            models.UniqueConstraint(fields=["hit", "position"], name="hititem_unique_position"),
        ]

    def __str__(self):
        return f"{self.item} at {self.position} of {self.hit}"


class Assignment(models.Model):
    class State(models.TextChoices):
        CLAIMED = "claimed"
        SUBMITTED = "submitted"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXPIRED = "expired"

    DEAD_STATES = (State.EXPIRED,)

    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    state = models.CharField(max_length=20, choices=State.choices, default=State.CLAIMED)
    provider_assignment_id = models.CharField(max_length=64, blank=True, db_index=True)
    claimed = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(null=True, blank=True)
    submitted = models.DateTimeField(null=True, blank=True)
    reviewed = models.DateTimeField(null=True, blank=True)
    # As submitted (the provider's form fields) and as parsed by the task type.
    raw_answers = models.JSONField(null=True, blank=True)
    answers = models.JSONField(null=True, blank=True)
    feedback = models.TextField(blank=True)

    class Meta:
        constraints = [
            # A worker never holds two live assignments of one HIT.
            models.UniqueConstraint(fields=["hit", "worker"], condition=~Q(state="expired"),
                                    name="assignment_one_per_worker"),
        ]

    def __str__(self):
        return f"{self.worker} on {self.hit}"

    def can_submit(self, worker, now=None):
        """Why `worker` may not submit this assignment, or None if they may."""
        now = now or timezone.now()
        if worker.pk != self.worker_id:
            return "this assignment belongs to another worker"
        if worker.blocked:
            return "this worker is blocked"
        if self.state != self.State.CLAIMED:
            return f"this assignment is {self.state}, not open for submission"
        if self.deadline and now > self.deadline:
            return "the time for this assignment ran out"
        return None


class Bonus(models.Model):
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="bonuses")
    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="bonuses")
    amount = models.DecimalField(max_digits=8, decimal_places=2)
    reason = models.TextField()
    token = models.CharField(max_length=64, unique=True)
    sent = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "bonuses"

    def __str__(self):
        return f"{self.amount} to {self.worker}"
