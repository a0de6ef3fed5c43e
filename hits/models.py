"""Crowd work: batches of items packed into HITs, assignments, workers.

`hits` knows items, not what they mean: an item is a payload the batch's task
type understands (see `hits.task_types`), with an optional known answer.
"""

import uuid
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.functional import cached_property

from core.items import Payload, payload_from_json


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
        CANCELLED = "cancelled"

    # States in which the provider may still hold work of the batch that can change: sync goes on
    # until every HIT of the batch is final (see hits.services.batch_sync).
    SYNCING_STATES = (State.PUBLISHING, State.PUBLISHED, State.COMPLETED, State.EXPIRED, State.CANCELLED)

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
    # Every HIT final at the provider (nothing can change any more): sync and reconcile leave it be.
    final = models.BooleanField(default=False)
    # Hidden from the lists; a batch with work is archived, never deleted.
    archived = models.BooleanField(default=False)
    # One sync at a time: a sync takes the lease, and a lease older than SYNC_LEASE_SECONDS is stale.
    sync_lease = models.DateTimeField(null=True, blank=True)
    # The last reconcile: when, and the differences it found ({"differences": [...], "repaired": [...]}).
    reconciled = models.DateTimeField(null=True, blank=True)
    reconcile_report = models.JSONField(default=dict, blank=True)
    # Adaptive redundancy (hits.services.adaptive): stop buying votes no remaining vote can change, re-pack the rest.
    class Adaptive(models.TextChoices):
        OFF = "", "off: every vote is bought"
        OUTCOMES = "outcomes", "the paper's outcomes (positive, 5/5 and 4/5 negative, discarded)"
        POSITIVES = "positives", "positive or not (negatives are not told apart)"

    # What must be decided before an item stops taking votes; "" buys every vote.
    adaptive = models.CharField(max_length=20, choices=Adaptive.choices, default=Adaptive.OFF, blank=True,
                                help_text="stop buying votes an item's outcome no longer needs")
    # What it did so far: {"retired": HITs, "repacked": HITs made, "withdrawn": places, "added": places}, and
    # "note" (a HIT the provider would not close) or "unpublished" (re-packed HITs a publish refused).
    adaptive_report = models.JSONField(default=dict, blank=True)
    # Raised each time the counted work changes (a submission stored, rejected or withdrawn: work_changed), so what
    # keeps figures of the work (a design's stored report) knows in one read that they are out of date.
    work_version = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "batches"
        constraints = [
            models.CheckConstraint(condition=Q(gold_rate__gte=0, gold_rate__lte=1), name="batch_gold_rate_share"),
            models.CheckConstraint(condition=Q(reward__gte=0), name="batch_reward_not_negative"),
            models.CheckConstraint(condition=Q(budget__isnull=True) | Q(budget__gte=0),
                                   name="batch_budget_not_negative"),
            models.CheckConstraint(condition=Q(items_per_hit__gte=1, assignments_per_hit__gte=1),
                                   name="batch_hits_not_empty"),
        ]

    def __str__(self):
        return f"{self.name} ({self.provider})"

    @classmethod
    def work_changed(cls, batch_id: int) -> None:
        """The batch's counted work changed: called where it changes, in that change's transaction."""
        cls.objects.filter(pk=batch_id).update(work_version=F("work_version") + 1)

    def places(self) -> int:
        """Places (assignments) the batch's HITs offer in all (`Hit.place_count` summed)."""
        return self.hits.aggregate(n=Coalesce(Sum(hit_places()), 0))["n"]

    def spent(self):
        """Money paid out for this batch, from the ledger: rewards, bonuses and the provider's fees."""
        total = Payment.objects.filter(batch=self, state=Payment.State.CONFIRMED).aggregate(total=Sum("amount"))
        return (total["total"] or Decimal("0")).quantize(Decimal("0.01"))


class Item(models.Model):
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="items")
    # Who the item stands for outside `hits`, e.g. "candidate:17"; unique per batch.
    key = models.CharField(max_length=100)
    group = models.CharField(max_length=40, blank=True, help_text="interleaving group, e.g. the domain")
    payload = models.JSONField()
    is_gold = models.BooleanField(default=False)
    gold_answer = models.JSONField(null=True, blank=True)
    # Workers who may never get this item: in a multi-stage workflow, the authors of the earlier stages'
    # work it shows (a worker does not check or edit what they wrote). The claim engine skips HITs holding
    # such an item, and a provider's submission from one is flagged, not counted.
    excluded_workers = models.ManyToManyField(Worker, blank=True, related_name="excluded_from")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "key"], name="item_unique_key")]

    def __str__(self):
        return self.key

    @cached_property
    def content(self) -> Payload:
        """The payload as its typed record (core.items): the only way the payload is read."""
        return payload_from_json(self.payload, where=f"item {self.pk}")


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
    # A random key, stored with the row: the provider's idempotency token for creating this HIT, and the
    # mark by which a HIT made before a crash is found again (never derived from ids a reset would reuse).
    request_key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Set just before the create call: a HIT with it and no provider id may exist at the provider.
    publish_started = models.DateTimeField(null=True, blank=True)
    synced = models.DateTimeField(null=True, blank=True)
    # Nothing about it can change at the provider any more (and it was disposed of there).
    final = models.BooleanField(default=False)
    # Places (assignments) it offers when not the batch's assignments_per_hit: a re-packed HIT offers the votes
    # its items still need, and a retired one the places taken when it was retired (hits.services.adaptive).
    places = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [models.UniqueConstraint(fields=["batch", "index"], name="hit_unique_index")]

    def __str__(self):
        return f"HIT {self.number} of {self.batch.name}"

    @property
    def place_count(self) -> int:
        return self.batch.assignments_per_hit if self.places is None else self.places

    @property
    def number(self):
        """The HIT's number as people count (from 1); `index` counts from 0."""
        return self.index + 1

    def ordered_items(self):
        return [hit_item.item for hit_item in self.hit_items.select_related("item").order_by("position")]

    def complete_if_done(self) -> bool:
        """Mark the HIT completed once every place it offers holds a submission, and its batch when nothing of it
        is open any more; True when the HIT is complete."""
        done = self.assignments.done().exclude(place_freed=True).count()
        if done < self.place_count:
            return False
        if self.state != Hit.State.COMPLETED:
            Hit.objects.filter(pk=self.pk).update(state=Hit.State.COMPLETED)
            self.state = Hit.State.COMPLETED
            batch = self.batch
            if not batch.hits.exclude(state=Hit.State.COMPLETED).exists():
                Batch.objects.filter(pk=batch.pk).update(state=Batch.State.COMPLETED)
            elif not batch.hits.filter(state__in=(Hit.State.PENDING, Hit.State.PUBLISHED)).exists():
                # The rest were closed one by one (a workflow retires a superseded item's HIT): nothing is open.
                Batch.objects.filter(pk=batch.pk, state=Batch.State.PUBLISHED).update(state=Batch.State.COMPLETED)
        return True

    def reopen_if_room(self) -> bool:
        """A completed HIT whose place came free again (work withdrawn, a place the provider gave back) opens
        again, and so does its batch, unless the batch was closed; True when it opened."""
        if self.state != Hit.State.COMPLETED or self.complete_if_done():
            return False
        batch = Batch.objects.get(pk=self.batch_id)
        if batch.state not in (Batch.State.PUBLISHED, Batch.State.COMPLETED):
            return False
        Hit.objects.filter(pk=self.pk).update(state=Hit.State.PUBLISHED)
        Batch.objects.filter(pk=batch.pk, state=Batch.State.COMPLETED).update(state=Batch.State.PUBLISHED,
                                                                               final=False)
        self.state = Hit.State.PUBLISHED
        return True


def hit_places() -> Coalesce:
    """`Hit.place_count` in a query: the places a HIT offers."""
    return Coalesce(F("places"), F("batch__assignments_per_hit"))


def with_room(hits: models.QuerySet, now) -> models.QuerySet:
    """`hits` that have a free place at `now`, annotated with `taken` and `offered`."""
    taken = (Assignment.objects.holding(now).filter(hit=OuterRef("pk")).values("hit").annotate(n=Count("pk"))
             .values("n"))
    return hits.annotate(taken=Coalesce(Subquery(taken), 0), offered=hit_places()).filter(taken__lt=F("offered"))


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


class AssignmentQuerySet(models.QuerySet):
    """The places of HITs, as the claim engine, the work list and the sync count them."""

    def holding(self, now=None):
        """Holding a place at `now`: not dead, not given up at the provider, and not a claim whose time ran out
        (swept or not)."""
        return self.live().exclude(state=Assignment.State.CLAIMED, deadline__lt=now or timezone.now())

    def live(self):
        """Holding a place whatever the time: not dead (expired, withdrawn) and not freed by the provider."""
        return self.exclude(state__in=Assignment.DEAD_STATES).exclude(place_freed=True)

    def overdue(self, now=None):
        """Claims whose time ran out and that still hold their place until they are expired."""
        return self.filter(state=Assignment.State.CLAIMED, deadline__lt=now or timezone.now())

    def done(self):
        """Holding a submission (submitted, approved or rejected)."""
        return self.filter(state__in=Assignment.DONE_STATES)

    def answered(self, batch):
        """The batch's assignments whose answers are data: submitted or approved (a rejected one's are not)."""
        return self.filter(hit__batch=batch, state__in=Assignment.COUNTED_STATES).exclude(answers=None)


class Assignment(models.Model):
    class State(models.TextChoices):
        CLAIMED = "claimed"
        SUBMITTED = "submitted"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXPIRED = "expired"
        # Submitted, then taken back by the worker (a Prolific participant who returned the submission while it
        # awaited review): its answers are no data, kept only in its Withdrawal, and its place is free again.
        WITHDRAWN = "withdrawn"

    # A dead place is free again; a done place holds a submission.
    DEAD_STATES = (State.EXPIRED, State.WITHDRAWN)
    DONE_STATES = (State.SUBMITTED, State.APPROVED, State.REJECTED)
    # Whose answers are data: a rejected assignment's are not.
    COUNTED_STATES = (State.SUBMITTED, State.APPROVED)
    # Set by a review that found the provider had decided already (not stored).
    review_note = ""

    # PROTECT: a HIT (and so a batch) with work in it is never deleted; it is archived.
    hit = models.ForeignKey(Hit, on_delete=models.PROTECT, related_name="assignments")
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
    # Why a person must look before this work is approved (answers that could not be read, a worker whose
    # qualification was revoked); flagged work is left out of bulk approval.
    flag = models.TextField(blank=True)
    # The answers so far, saved as the worker goes: a reload or another device picks up where they were.
    draft = models.JSONField(null=True, blank=True)
    draft_saved = models.DateTimeField(null=True, blank=True)
    # When each answer field first reached the server with something in it, in seconds after the claim (a saved
    # draft, else the submission): the server's own measure of how soon an item was answered, which a page cannot
    # shorten or stretch (a design's attention checks fail one answered too soon).
    answers_seen = models.JSONField(null=True, blank=True)
    # How often the worker asked for more time (in-house only; MTurk's deadline is MTurk's).
    extensions = models.PositiveSmallIntegerField(default=0)
    # Given back by the worker before the time ran out (the state is then "expired"): they are not handed it again.
    returned = models.BooleanField(default=False)
    # The provider gave this place to someone else while the work stays here (Prolific reopens the place of a
    # rejected submission, and of one it timed out after the work was stored): the place counts as free.
    place_freed = models.BooleanField(default=False)
    # How a place ended, when the provider says more than the state does ("returned", "timed out", "screened out"
    # at Prolific), for the batch page and reconcile.
    ended = models.CharField(max_length=20, blank=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        constraints = [
            # A worker never holds two live assignments of one HIT.
            models.UniqueConstraint(fields=["hit", "worker"], condition=~Q(state="expired"),
                                    name="assignment_one_per_worker"),
            # One row per assignment at the provider, however many syncs store it at once.
            models.UniqueConstraint(fields=["provider_assignment_id"], condition=~Q(provider_assignment_id=""),
                                    name="assignment_unique_provider_id"),
        ]

    def __str__(self):
        return f"{self.worker} on {self.hit}"

    def note_answers_seen(self, fields: dict, now) -> None:
        """Keep when each field of `fields` that holds something first reached the server (not saved here)."""
        seen = dict(self.answers_seen or {})
        after = round((now - self.claimed).total_seconds(), 1)
        for name, value in fields.items():
            if str(value).strip() and name not in seen:
                seen[str(name)] = after
        self.answers_seen = seen

    def can_submit(self, worker, now=None):
        """Why `worker` may not submit this assignment (said to the worker), or None if they may."""
        now = now or timezone.now()
        if worker.pk != self.worker_id:
            return "this HIT is held by another worker"
        if worker.blocked:
            return "your account is blocked from this work"
        if self.state == self.State.EXPIRED:
            return ("you returned this HIT, so it is no longer yours" if self.returned
                    else "the time for this HIT ran out and it went back to the pool")
        if self.state != self.State.CLAIMED:
            return f"this HIT was {self.state} already"
        if self.deadline and now > self.deadline:
            return "the time for this HIT ran out"
        return None


class Payment(models.Model):
    """The ledger: every reward, fee and bonus, written as an intent (with its own random idempotency key)
    before the provider is asked, and confirmed when the provider has done it.

    A retry reuses the row's key. A payment whose first attempt ended without a clear answer is looked up at
    the provider before it is sent again, so it is never paid twice (see hits.services.worker_bonus).
    """

    class Kind(models.TextChoices):
        REWARD = "reward"
        BONUS = "bonus"
        FEE = "fee"  # the provider's commission on a reward or a bonus
        VAT = "vat"  # the VAT on a fee (Prolific charges it by where the workspace is registered)

    class State(models.TextChoices):
        INTENDED = "intended"
        CONFIRMED = "confirmed"
        FAILED = "failed"  # the provider refused it for good; nothing was paid

    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="payments")
    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="payments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="payments")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # Four places: a provider's fee can hold a fraction of a cent (Prolific: 850 pence -> 283.34 pence in fees),
    # kept exact here and rounded once, where a sum is shown.
    amount = models.DecimalField(max_digits=14, decimal_places=4)
    reason = models.TextField(blank=True)
    key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.INTENDED)
    # The provider's id for it, where it gives one (a Prolific bonus payment).
    provider_reference = models.CharField(max_length=100, blank=True)
    # The payment this fee is the commission of (or the fee this VAT is charged on).
    fee_of = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="fee")
    attempts = models.PositiveSmallIntegerField(default=0)
    # Set while one request is asking the provider to pay it: a second request finds it taken and stops, so
    # concurrent requests pay once. A lease: after PAYMENT_LEASE_SECONDS a crashed sender's claim lapses, and
    # the next attempt looks the payment up at the provider before it sends anything.
    sending_since = models.DateTimeField(null=True, blank=True)
    # When an attempt's answer was lost after the provider may have paid: the payment is looked up there before
    # anything is sent again, and not sent again until the provider has had PAYMENT_SETTLE_SECONDS to list it.
    in_doubt_since = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    confirmed = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="payment_amount_not_negative"),
            # One reward a piece of work; one bonus per assignment and reason.
            models.UniqueConstraint(fields=["assignment"], condition=Q(kind="reward"), name="payment_one_reward"),
            models.UniqueConstraint(fields=["assignment", "reason"], condition=Q(kind="bonus"),
                                    name="payment_one_bonus_per_reason"),
        ]
        indexes = [models.Index(fields=["batch", "state"])]

    def __str__(self):
        return f"{self.kind} {self.amount} to {self.worker} ({self.state})"


class Withdrawal(models.Model):
    """Work withdrawn after it was submitted (a Prolific participant who returned their submission while it awaited
    review: Prolific pays nothing for it and the data must not be used). Its answers leave every count, label and
    export; they are kept here only, with when and why, for audit."""

    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="withdrawal")
    when = models.DateTimeField(default=timezone.now)
    reason = models.TextField()
    answers = models.JSONField(null=True, blank=True)
    raw_answers = models.JSONField(null=True, blank=True)

    def __str__(self):
        return f"assignment {self.assignment_id} withdrawn {self.when:%Y-%m-%d %H:%M}"


class ProviderEvent(models.Model):
    """A webhook event taken from a provider, kept so that a retried or replayed event is acted on once."""

    provider = models.CharField(max_length=20)
    event_id = models.CharField(max_length=100)
    body = models.TextField(blank=True)
    received = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["provider", "event_id"], name="providerevent_once")]

    def __str__(self):
        return f"{self.provider} event {self.event_id}"
