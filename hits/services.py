"""Workflows of crowd work: create, publish, claim, submit, sync, review, pay."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.errors import InputError
from core.items import Payload
from hits import extensions, selectors
from hits.adaptive import adaptive_refusal, batch_adapt
from hits.models import Assignment, Batch, Hit, HitItem, Item, Payment, Worker, holding_places, with_room
from hits.providers import PROVIDERS, get_provider
from hits.providers.base import DuplicateRequest, NotReviewable, ProviderError, RemoteHit, Submission, money
from hits.task_types import AnswerError, TaskType, get_task_type


class CrowdError(InputError):
    """A request the crowd services refuse; the message says why and what to do, and `action`
    (label, url) where there is a page to do it on."""

    def __init__(self, message: str, *, action: tuple[str, str] | None = None, **where: Any):
        super().__init__(message, **where)
        self.action = action or getattr(message, "action", None)


class PaymentInFlight(CrowdError):
    """Another request is asking the provider to pay this payment right now."""


class BudgetExceeded(CrowdError):
    pass


# --- batches --------------------------------------------------------------------

@dataclass(frozen=True)
class ItemSpec:
    """An item to put in a batch: who it stands for (`key`, unique per batch), what the worker is
    shown (a typed payload), its interleaving group, and its known answer if there is one."""

    key: str
    payload: Payload
    group: str = ""
    gold_answer: Any = None


def batch_create(*, name: str, task_type: str, items: Sequence[ItemSpec], gold_items: Sequence[ItemSpec] = (),
                 provider: str = "inhouse", items_per_hit: int = 25, assignments_per_hit: int = 5,
                 gold_rate: float = 0.0, seed: int = 0, reward: Decimal | str = Decimal("0.50"),
                 budget: Decimal | None = None, requirements: dict[str, Any] | None = None, created_by: Any = None,
                 assignment_duration: int = 3600, lifetime: int = 7 * 24 * 3600, grows: bool = False,
                 adaptive: str = "") -> Batch:
    """Pack items into HITs: domains interleaved, gold mixed in, all decided by `seed`.

    `items` may carry a known answer (measured against, not a check);
    `gold_items` are the known-answer checks mixed into every HIT.
    Each HIT gets round(items_per_hit × gold_rate) gold items (no more than
    the pool holds) at seeded positions, and the other items are spread
    evenly so HIT sizes differ by at most one. A batch that `grows` (a later stage of a workflow) may
    start empty; `batch_extend` adds its items as the earlier stage produces them. An `adaptive` batch
    ("outcomes" or "positives": what must be decided) stops buying votes no remaining vote can change and
    re-packs the rest (hits.adaptive).
    """
    try:
        get_task_type(task_type)
    except LookupError as error:
        raise CrowdError(str(error)) from None
    if provider not in PROVIDERS:
        raise CrowdError(f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}")
    refusal = adaptive_refusal(provider=provider, task_type=task_type, mode=adaptive) if adaptive else None
    if refusal:
        raise CrowdError(refusal)
    if not 1 <= items_per_hit <= 100 or assignments_per_hit < 1:
        raise CrowdError("items_per_hit must be 1 to 100 (the paper used 20-30) and assignments_per_hit at least 1")
    items, gold_items = list(items), list(gold_items)
    if not items and not grows:
        raise CrowdError("a batch needs at least one item")
    requirements = check_requirements(requirements or {})
    keys = [item.key for item in items + gold_items]
    if len(set(keys)) != len(keys):
        raise CrowdError("item keys must be unique within a batch")
    rng = random.Random(seed)
    gold_per_hit = min(len(gold_items), round(items_per_hit * gold_rate)) if gold_rate else 0
    ordered = interleave(items, rng)
    hits_needed = hit_count(items=len(ordered), items_per_hit=items_per_hit, gold_items=len(gold_items),
                            gold_rate=gold_rate)

    with transaction.atomic():
        batch = Batch.objects.create(
            name=name, task_type=task_type, provider=provider, items_per_hit=items_per_hit,
            assignments_per_hit=assignments_per_hit, gold_rate=gold_rate, seed=seed, reward=money(reward),
            budget=budget, requirements=requirements or {}, created_by=created_by,
            assignment_duration=assignment_duration, lifetime=lifetime, adaptive=adaptive,
        )
        stored = Item.objects.bulk_create(
            [Item(batch=batch, key=i.key, group=i.group, payload=i.payload.to_json(), gold_answer=i.gold_answer)
             for i in ordered]
            + [Item(batch=batch, key=g.key, group=g.group, payload=g.payload.to_json(), is_gold=True,
                    gold_answer=g.gold_answer) for g in gold_items]
        )
        real, gold = stored[:len(ordered)], stored[len(ordered):]
        if not ordered:
            return batch
        hits = Hit.objects.bulk_create(Hit(batch=batch, index=index) for index in range(hits_needed))
        hit_items: list[HitItem] = []
        gold_order = _gold_cycle(gold, rng)
        for hit, share in zip(hits, _even_split(real, hits_needed), strict=True):
            chosen: list[Item] = []
            while len(chosen) < gold_per_hit:
                candidate = next(gold_order)
                if candidate not in chosen:  # a round may start with the item the last one ended on
                    chosen.append(candidate)
            members = share + chosen
            rng.shuffle(members)
            hit_items.extend(HitItem(hit=hit, item=item, position=p) for p, item in enumerate(members))
        HitItem.objects.bulk_create(hit_items)
    return batch


def batch_extend(*, batch: Batch, items: Sequence[ItemSpec],
                 excluded: Mapping[str, Sequence[Worker]] | None = None) -> list[Hit]:
    """Add items to a batch that grows, packed into new HITs of `items_per_hit` after the ones it has; a
    completed batch opens again. `excluded` maps an item key to the workers who may never get it. The new
    HITs are pending: `batch_publish` publishes them (within the budget) once this transaction commits."""
    if not items:
        return []
    if batch.state in (Batch.State.EXPIRED, Batch.State.CANCELLED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; it takes no new items")
    excluded = excluded or {}
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        taken = set(Item.objects.filter(batch=batch, key__in=[item.key for item in items])
                    .values_list("key", flat=True))
        if taken or len({item.key for item in items}) != len(items):
            raise CrowdError(f"batch {batch.pk} has item(s) {', '.join(sorted(taken)) or 'repeated'} already")
        stored = Item.objects.bulk_create(Item(batch=batch, key=i.key, group=i.group, payload=i.payload.to_json(),
                                               gold_answer=i.gold_answer) for i in items)
        Item.excluded_workers.through.objects.bulk_create(
            Item.excluded_workers.through(item_id=item.pk, worker_id=worker.pk)
            for item in stored for worker in {worker.pk: worker for worker in excluded.get(item.key, ())}.values())
        last = batch.hits.aggregate(last=Max("index"))["last"]
        start = 0 if last is None else last + 1
        parts = _even_split(stored, -(-len(stored) // batch.items_per_hit))
        hits = Hit.objects.bulk_create(Hit(batch=batch, index=start + n) for n in range(len(parts)))
        HitItem.objects.bulk_create(HitItem(hit=hit, item=item, position=p)
                                    for hit, part in zip(hits, parts, strict=True) for p, item in enumerate(part))
        if batch.state == Batch.State.COMPLETED:
            Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHED, final=False)
    return hits


def interleave(items: Sequence[ItemSpec], rng: random.Random) -> list[ItemSpec]:
    """Round-robin over groups (sorted), each group shuffled by `rng`."""
    groups: dict[str, list[ItemSpec]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    queues: list[list[ItemSpec]] = []
    for name in sorted(groups):
        members = groups[name]
        rng.shuffle(members)
        queues.append(members)
    ordered: list[ItemSpec] = []
    for position in range(max((len(queue) for queue in queues), default=0)):
        ordered.extend(queue[position] for queue in queues if position < len(queue))
    return ordered


def _gold_cycle(gold: list[Item], rng: random.Random) -> Iterator[Item]:
    """Gold items in rounds: each is used once before any is used again.

    A worker never sees an item twice in a batch, so a gold item in two HITs
    keeps a worker who took one from taking the other; a pool as large as the
    HITs need avoids that entirely.
    """
    while gold:
        round_ = list(gold)
        rng.shuffle(round_)
        yield from round_


def _even_split(items: list[Item], parts: int) -> list[list[Item]]:
    size, extra = divmod(len(items), parts)
    shares, start = [], 0
    for part in range(parts):
        end = start + size + (1 if part < extra else 0)
        shares.append(items[start:end])
        start = end
    return shares


@dataclass(frozen=True)
class CostEstimate:
    hits: int
    assignments: int
    rewards: Decimal  # what the workers get
    fees: Decimal  # what the provider charges on top
    total: Decimal


def hit_count(*, items: int, items_per_hit: int, gold_items: int = 0, gold_rate: float = 0.0) -> int:
    """How many HITs batch_create makes of `items` (gold checks take their places in every HIT)."""
    gold_per_hit = min(gold_items, round(items_per_hit * gold_rate)) if gold_rate else 0
    return math.ceil(items / max(1, items_per_hit - gold_per_hit)) if items else 0


def cost_estimate(*, provider: str, hits: int, assignments_per_hit: int, reward: Decimal | str,
                  masters: bool = False, places: int | None = None) -> CostEstimate:
    """What `hits` HITs of `assignments_per_hit` places cost at `provider`, its fees apart; `places`, when
    given, is what the HITs offer in all (re-packed and retired HITs offer their own number)."""
    reward = money(reward)
    per_assignment = get_provider(provider).cost_per_assignment(reward, assignments_per_hit, masters)
    assignments = hits * assignments_per_hit if places is None else places
    total = money(assignments * per_assignment)
    rewards = money(assignments * reward)
    return CostEstimate(hits=hits, assignments=assignments, rewards=rewards, fees=total - rewards, total=total)


def batch_cost(*, batch: Batch) -> CostEstimate:
    """What the batch's HITs cost: every place they offer (a re-packed or retired HIT offers its own count)."""
    return cost_estimate(provider=batch.provider, hits=batch.hits.count(),
                         assignments_per_hit=batch.assignments_per_hit, reward=batch.reward,
                         masters=bool(batch.requirements.get("masters")), places=batch.places())



def worker_filters(*, provider: str, requirements: dict[str, Any]) -> list[str]:
    """Who may take a batch's work at `provider`, in words (the batch page and the cost estimate show it)."""
    return get_provider(provider).describe_filters(requirements or {})


def describe_batch(batch: Batch) -> str:
    """Cost and who may work, in two lines for a command's output."""
    cost = batch_cost(batch=batch)
    return (f"cost: {cost.assignments} assignments, {cost.rewards} in rewards + {cost.fees} in {batch.provider} fees "
            f"= {cost.total}\nwho may work: "
            + "; ".join(worker_filters(provider=batch.provider, requirements=batch.requirements)))


def check_requirements(requirements: dict[str, Any]) -> dict[str, Any]:
    """The worker filters of a batch, checked: a minimum approval rate (0-100), a minimum number of approved
    HITs (MTurk's NumberHITsApproved, Prolific's approved submissions) and Masters (MTurk)."""
    checked = dict(requirements)
    for name, low, high in (("min_approval_rate", 0, 100), ("min_approved_hits", 0, 10_000_000)):
        if checked.get(name) in (None, ""):
            checked.pop(name, None)
            continue
        value = checked[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise CrowdError(f"requirement {name} is {value!r}; use a whole number from {low} to {high:,}")
    if "masters" in checked and not isinstance(checked["masters"], bool):
        raise CrowdError(f"requirement masters is {checked['masters']!r}; use true or false")
    if not checked.get("masters", True):
        checked.pop("masters")
    return checked


def batch_estimate_cost(*, batch: Batch) -> Decimal:
    return batch_cost(batch=batch).total


def batch_publish(*, batch: Batch) -> Batch:
    """Publish every HIT not published yet. Safe to re-run after a crash, a kill or a provider failure:
    what can be checked is checked before anything is published (budget, balance, each question's
    size), each HIT records its provider id as soon as it has one, and a HIT whose create call may
    have gone through is looked for at the provider before it is made again."""
    if batch.state in (Batch.State.COMPLETED, Batch.State.EXPIRED, Batch.State.CANCELLED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; create a new batch instead")
    estimate = batch_estimate_cost(batch=batch)
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=batch.pk).first()
        budget_check(batch=batch, estimate=estimate, what=f"publishing batch {batch.pk} for {estimate} (with "
                                                           f"provider fees)")
    provider = get_provider(batch.provider)
    unpublished = list(batch.hits.filter(provider_hit_id="").select_related("batch"))
    problems = provider.check(batch, unpublished)
    if problems:
        raise CrowdError(f"batch {batch.pk} cannot be published as it is: " + "; ".join(problems))
    balance = provider.available_balance()
    needed = estimate * len(unpublished) / max(1, batch.hits.count())
    if balance is not None and balance < needed:
        raise BudgetExceeded(f"the {provider.name} account holds {balance}, and publishing batch {batch.pk} needs "
                             f"{money(needed)}; add funds first")
    Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHING)
    provider.prepare(batch)
    published = batch.hits.count() - len(unpublished)
    for hit in unpublished:
        hit.batch = batch  # as `prepare` left it (the provider's HIT type)
        try:
            provider_id = (provider.find_hit(hit) if hit.publish_started else None) or _create(provider, hit)
        except ProviderError as error:
            raise ProviderError(f"{error} (batch {batch.pk}: {published} of {batch.hits.count()} HITs published; "
                                f"publish again to go on)") from error
        now = timezone.now()
        Hit.objects.filter(pk=hit.pk, provider_hit_id="").update(
            provider_hit_id=provider_id, state=Hit.State.PUBLISHED, published=now,
            expires=now + timedelta(seconds=batch.lifetime))
        published += 1
    batch.state = Batch.State.PUBLISHED
    batch.published = batch.published or timezone.now()
    batch.final = False
    batch.save(update_fields=["state", "published", "final"])
    selectors.open_hits_changed(batch)
    return batch


def _create(provider: Any, hit: Hit) -> str:
    # Marked (and committed) before the call: if the answer is lost, the next publish looks for the HIT first.
    Hit.objects.filter(pk=hit.pk).update(publish_started=timezone.now())
    return provider.publish_hit(hit, hit.ordered_items())


def batch_expire(*, batch: Batch) -> Batch:
    """No new takers: the HITs expire at the provider. Work already taken may still be submitted,
    so the batch keeps syncing until every HIT is final."""
    return _close(batch, Batch.State.EXPIRED)


def batch_cancel(*, batch: Batch) -> Batch:
    """Retire a batch (a batch with work is never deleted): a draft simply stops; a published batch
    expires its HITs at the provider and keeps syncing until what was taken is in and reviewed."""
    if batch.state == Batch.State.CANCELLED:
        return batch
    return _close(batch, Batch.State.CANCELLED)


def _close(batch: Batch, state: str) -> Batch:
    provider = get_provider(batch.provider)
    for hit in batch.hits.filter(state=Hit.State.PUBLISHED).exclude(provider_hit_id=""):
        provider.expire_hit(hit)
    now = timezone.now()
    batch.hits.filter(state__in=[Hit.State.PUBLISHED, Hit.State.PENDING]).update(state=Hit.State.EXPIRED, expires=now)
    Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).update(state=Assignment.State.EXPIRED)
    batch.state = state
    batch.save(update_fields=["state"])
    return batch


def batch_archive(*, batch: Batch) -> Batch:
    """Hide a batch from the lists. Its work, votes and payments stay, as they must."""
    if batch.state in (Batch.State.PUBLISHING, Batch.State.PUBLISHED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; cancel it first (its HITs expire at the provider)")
    batch.archived = True
    batch.save(update_fields=["archived"])
    return batch


# --- in-house work: claim and submit ----------------------------------------------

def worker_for_user(user: Any) -> Worker:
    worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=f"user-{user.pk}",
                                             defaults={"user": user})
    return worker


def assignment_claim(*, batch: Batch, worker: Worker) -> Assignment | None:
    """Give `worker` a place in the next HIT of `batch` they may take, or None.

    A worker who already holds an open HIT of the batch gets that one back,
    not a second. The HIT row is locked while its places are counted, so two
    workers racing for the last place cannot both get it; the unique
    constraint on (HIT, worker) keeps one worker from two places in one HIT.
    """
    refusal = _refusal(batch, worker)
    if refusal:
        raise CrowdError(refusal)  # a Refusal carries what the worker can do about it
    if batch.state != Batch.State.PUBLISHED:
        raise CrowdError(f"{batch.name} is {batch.state}, not open for work")
    now = timezone.now()
    assignments_expire_overdue(worker=worker, now=now)
    holding = Assignment.objects.filter(hit__batch=batch, worker=worker, state=Assignment.State.CLAIMED).first()
    if holding is not None:
        return holding
    held = holding_places(now).filter(hit__batch=batch, worker=worker)
    returned = Assignment.objects.filter(hit__batch=batch, worker=worker, returned=True)
    # Only gold items are in more than one HIT (batch_create puts every other item in exactly one,
    # and mixes gold in only at a gold rate), so only they can make a HIT one the worker has partly seen.
    seen_gold = list(HitItem.objects.filter(hit__assignments__in=held, item__is_gold=True)
                     .values_list("item_id", flat=True)) if batch.gold_rate else []
    # Counted per HIT in index order until 20 are found: the work stays small however many
    # assignments the batch has (a join and count over all of them grew with every submission).
    candidates = with_room(
        batch.hits.filter(state=Hit.State.PUBLISHED)
        .exclude(Exists(held.filter(hit=OuterRef("pk"))))
        .exclude(Exists(returned.filter(hit=OuterRef("pk"))))
        .exclude(Exists(HitItem.objects.filter(hit=OuterRef("pk"), item_id__in=seen_gold)))
        .exclude(Exists(HitItem.objects.filter(hit=OuterRef("pk"), item__excluded_workers=worker))), now,
    ).order_by("index").values_list("pk", flat=True)
    # A HIT another claim has locked is passed over at first, not waited for: a crowd arriving at once would
    # otherwise queue on the first open HIT, each holding a web process while it waits. Only when every
    # candidate was locked does the claim wait, in turn, for those.
    skipped = []
    for hit_id in list(candidates[:20]):
        taken, locked = _claim_place(hit_id, batch=batch, worker=worker, wait=False)
        if taken is not None:
            return taken
        if locked:
            skipped.append(hit_id)
    for hit_id in skipped:
        taken, _ = _claim_place(hit_id, batch=batch, worker=worker, wait=True)
        if taken is not None:
            return taken
    return None


def _claim_place(hit_id: int, *, batch: Batch, worker: Worker, wait: bool) -> tuple[Assignment | None, bool]:
    """(a new place in the HIT for `worker`, or None if it has none free; whether another claim held the HIT
    locked, when not waiting for it)."""
    try:
        with transaction.atomic():
            hit = Hit.objects.select_for_update(skip_locked=not wait).filter(pk=hit_id).first()
            if hit is None:
                return None, True
            hit.batch = batch  # its place count reads the batch's assignments per HIT
            now = timezone.now()
            overdue = Q(state=Assignment.State.CLAIMED, deadline__lt=now)
            counts = hit.live_assignments().aggregate(live=Count("pk", filter=~overdue),
                                                      overdue=Count("pk", filter=overdue))
            if counts["live"] >= hit.place_count:
                return None, False
            if counts["overdue"]:  # under the HIT's lock: their places go back before this one is taken
                assignments_expire_overdue(hit=hit, now=now)
            if counts["live"] + 1 >= hit.place_count:  # this place fills the HIT
                transaction.on_commit(lambda: selectors.open_hits_changed(batch))
            return Assignment.objects.create(hit=hit, worker=worker, claimed=now,
                                             deadline=now + timedelta(seconds=batch.assignment_duration)), False
    except IntegrityError:
        return None, False  # this worker claimed it in a parallel request


def assignment_submit(*, assignment: Assignment, worker: Worker,
                      raw_answers: dict[str, Any]) -> tuple[Assignment, bool]:
    """Store a worker's answers once. Returns (assignment, stored_now).

    A replay of the same submission returns the stored assignment unchanged;
    anything else that does not fit (another worker, time out, bad answers)
    is refused with a message.
    """
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().select_related("hit__batch").get(pk=assignment.pk)
        if assignment.state in Assignment.DONE_STATES and assignment.worker_id == worker.pk:
            return assignment, False
        refusal = assignment.can_submit(worker) or _refusal(assignment.hit.batch, worker)
        if refusal:
            raise CrowdError(refusal)
        task_type = get_task_type(assignment.hit.batch.task_type)
        try:
            answers = task_type.parse_answers(assignment.hit.ordered_items(), raw_answers)
        except AnswerError as error:
            raise CrowdError(str(error)) from None
        assignment.state = Assignment.State.SUBMITTED
        assignment.raw_answers = raw_answers
        assignment.answers = answers
        assignment.submitted = timezone.now()
        assignment.draft = None
        assignment.save(update_fields=["state", "raw_answers", "answers", "submitted", "draft"])
        task_type.on_submitted(assignment)
        _complete_hit_if_done(assignment.hit)
    if assignment.hit.batch.adaptive:
        batch_adapt(batch=assignment.hit.batch)  # after the submission is stored: a failure here loses nothing
    return assignment, True


DRAFT_LIMIT = 200_000  # characters of a saved draft: far more than any HIT's answers


def assignment_draft_save(*, assignment: Assignment, worker: Worker, fields: dict[str, Any]) -> Assignment:
    """Keep the answers given so far, so that a reload (or another device) finds them again."""
    refusal = assignment.can_submit(worker)
    if refusal:
        raise CrowdError(refusal)
    if len(repr(fields)) > DRAFT_LIMIT:
        raise CrowdError("these answers are too long to keep as a draft")
    assignment.draft = {str(key): str(value) for key, value in fields.items()}
    assignment.draft_saved = timezone.now()
    assignment.save(update_fields=["draft", "draft_saved"])
    return assignment


def assignment_return(*, assignment: Assignment, worker: Worker) -> Assignment:
    """Give a HIT back: the place is free for someone else at once, and the draft goes with it."""
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if assignment.worker_id != worker.pk:
            raise CrowdError("this HIT is held by another worker")
        if assignment.state != Assignment.State.CLAIMED:
            raise CrowdError(f"this HIT was {assignment.state} already; there is nothing to return")
        assignment.state, assignment.draft, assignment.returned = Assignment.State.EXPIRED, None, True
        assignment.save(update_fields=["state", "draft", "returned"])
        transaction.on_commit(lambda: selectors.open_hits_changed(assignment.hit.batch))
    return assignment


MAX_EXTENSIONS = 2


def assignment_extend(*, assignment: Assignment, worker: Worker) -> Assignment:
    """More time for a HIT the worker is still on: up to half its time limit (at most 30 minutes) more,
    twice at most, and only while the time has not run out."""
    refusal = assignment.can_submit(worker)
    if refusal:
        raise CrowdError(refusal)
    if assignment.hit.batch.provider != "inhouse":
        raise CrowdError("the time limit of this HIT is set by its provider")
    if assignment.extensions >= MAX_EXTENSIONS:
        raise CrowdError(f"this HIT has had more time {MAX_EXTENSIONS} times already; submit what you have or "
                         f"return it")
    more = timedelta(seconds=min(assignment.hit.batch.assignment_duration // 2, 1800))
    Assignment.objects.filter(pk=assignment.pk).update(deadline=F("deadline") + more,
                                                       extensions=F("extensions") + 1)
    assignment.refresh_from_db(fields=["deadline", "extensions"])
    return assignment


def _refusal(batch: Batch, worker: Worker) -> str | None:
    if worker.blocked:
        return "your account is blocked from this work" + (f": {worker.blocked_reason}" if worker.blocked_reason
                                                           else "")
    return extensions.refusal(batch, worker)


def _author_refusal(hit: Hit, worker: Worker) -> str | None:
    """For work a provider let through: in-house and Prolific claims never reach an item the worker is
    excluded from (assignment_claim skips its HIT). Exclusions are set when a workflow makes the item, or
    when adaptive redundancy re-packs it (its voters)."""
    if HitItem.objects.filter(hit=hit, item__excluded_workers=worker).exists():
        return ("this HIT holds an item you may not work on again (you wrote it in an earlier stage, or already "
                "voted on it); someone else takes it")
    return None


def _complete_hit_if_done(hit: Hit) -> None:
    done = hit.assignments.filter(state__in=Assignment.DONE_STATES).count()
    if done >= hit.place_count and hit.state != Hit.State.COMPLETED:
        Hit.objects.filter(pk=hit.pk).update(state=Hit.State.COMPLETED)
        batch = hit.batch
        if not batch.hits.exclude(state=Hit.State.COMPLETED).exists():
            Batch.objects.filter(pk=batch.pk).update(state=Batch.State.COMPLETED)
        elif not batch.hits.filter(state__in=(Hit.State.PENDING, Hit.State.PUBLISHED)).exists():
            # The rest were closed one by one (a workflow retires a superseded item's HIT): nothing is open.
            Batch.objects.filter(pk=batch.pk, state=Batch.State.PUBLISHED).update(state=Batch.State.COMPLETED)


def assignments_expire_overdue(*, now: datetime | None = None, worker: Worker | None = None,
                               hit: Hit | None = None) -> int:
    """Free the places of claims whose time ran out (one worker's, or one HIT's, or all); returns how many.

    The sweep over all of them is periodic (`sync_open_batches`); a request expires only what it reads, and
    reads before it writes, so a crowd's page views never queue behind one another's writes to every claim."""
    claims = Assignment.objects.filter(state=Assignment.State.CLAIMED, deadline__lt=now or timezone.now())
    if worker is not None:
        claims = claims.filter(worker=worker)
    if hit is not None:
        claims = claims.filter(hit=hit)
    overdue = dict(claims.values_list("pk", "hit__batch"))
    if not overdue:
        return 0
    expired = Assignment.objects.filter(pk__in=overdue, state=Assignment.State.CLAIMED).update(
        state=Assignment.State.EXPIRED)
    batches = list(Batch.objects.filter(pk__in=set(overdue.values())))
    transaction.on_commit(lambda: selectors.open_hits_changed(*batches))  # places came free
    return expired


def assignment_expire_if_overdue(*, assignment: Assignment) -> Assignment:
    """The assignment, expired first if it is a claim whose time ran out (no query when it is not)."""
    if assignment.state == Assignment.State.CLAIMED and assignment.deadline and assignment.deadline < timezone.now():
        if Assignment.objects.filter(pk=assignment.pk, state=Assignment.State.CLAIMED).update(
                state=Assignment.State.EXPIRED):
            assignment.state = Assignment.State.EXPIRED
            selectors.open_hits_changed(assignment.hit.batch)
        else:
            assignment.refresh_from_db()
    return assignment


# --- sync from providers that hold the submissions --------------------------------

@dataclass
class SyncReport:
    new: int = 0
    updated: int = 0
    invalid: int = 0
    flagged: int = 0
    expired_claims: int = 0
    hits: int = 0
    disposed: int = 0
    left: int = 0  # HITs not reached before the time ran out; the next sync goes on from them
    unmatched: int = 0  # places submitted at the provider with no work stored here
    skipped: str = ""  # why the sync did nothing (another one holds the batch)


_STATE = {"submitted": Assignment.State.SUBMITTED, "approved": Assignment.State.APPROVED,
          "rejected": Assignment.State.REJECTED}


def batch_sync(*, batch: Batch, seconds: float | None = None) -> SyncReport:
    """Pull what the provider holds, until every HIT of the batch is final.

    One sync of a batch at a time (a lease on the batch row); HITs are taken
    least recently synced first and the sync stops after `seconds`, so a big
    batch spreads over several runs. A HIT is final when it is closed at the
    provider (expired, or every place submitted), nobody holds a place in it,
    and all its work is reviewed; it is then disposed of there and no longer
    asked about. A submission that cannot be read is stored raw and flagged,
    and the rest of the batch syncs.
    """
    report = SyncReport(expired_claims=assignments_expire_overdue())
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SYNC_LEASE_SECONDS)
    if not Batch.objects.filter(pk=batch.pk).filter(Q(sync_lease=None) | Q(sync_lease__lt=stale)).update(
            sync_lease=now):
        report.skipped = f"another sync of batch {batch.pk} is running"
        return report
    try:
        provider = get_provider(batch.provider)
        if provider.pulls_submissions:
            _sync_remote(batch, provider, report, seconds or settings.SYNC_SECONDS)
        if provider.lists_assignments:
            _sync_places(batch, provider, report)
        for hit in batch.hits.exclude(state=Hit.State.COMPLETED).select_related("batch"):
            _complete_hit_if_done(hit)
        if batch.adaptive:
            batch_adapt(batch=batch)  # every sync, not only one with news: a claim that expired frees a need
        _finish_if_final(batch, provider)
    finally:
        Batch.objects.filter(pk=batch.pk, sync_lease=now).update(sync_lease=None)
    return report


def _sync_remote(batch: Batch, provider: Any, report: SyncReport, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    task_type = get_task_type(batch.task_type)
    hits = list(batch.hits.exclude(provider_hit_id="").filter(final=False).select_related("batch")
                .order_by(F("synced").asc(nulls_first=True), "index"))
    for position, hit in enumerate(hits):
        if time.monotonic() > deadline:
            report.left = len(hits) - position
            return
        for submission in provider.fetch_submissions(hit):
            submission_store(batch, hit, submission, task_type, report)
        _complete_hit_if_done(hit)
        remote = provider.hit_state(hit)
        report.hits += 1
        if remote is not None and _hit_final(hit, remote):
            if remote.status != "disposed":
                provider.dispose_hit(hit)
                report.disposed += 1
            Hit.objects.filter(pk=hit.pk).update(final=True)
        Hit.objects.filter(pk=hit.pk).update(synced=timezone.now())


def _sync_places(batch: Batch, provider: Any, report: SyncReport) -> None:
    """Statuses from a provider whose work arrives on this site's pages (Prolific): a place given back or
    timed out there is freed here, and a review made there (approved, rejected) is recorded, with the
    reward in the ledger."""
    local = {a.provider_assignment_id: a for a in Assignment.objects.filter(hit__batch=batch)
             .exclude(provider_assignment_id="")}
    for remote in provider.remote_assignments(batch):
        assignment = local.get(remote.provider_assignment_id)
        if assignment is None:
            if remote.status == "submitted":
                report.unmatched += 1  # finished at the provider with no work stored here: reconcile names it
            continue
        if assignment.state == Assignment.State.CLAIMED and remote.status == "expired":
            Assignment.objects.filter(pk=assignment.pk, state=Assignment.State.CLAIMED).update(
                state=Assignment.State.EXPIRED)
            report.expired_claims += 1
        elif assignment.state == Assignment.State.SUBMITTED and remote.status in ("approved", "rejected"):
            with transaction.atomic():
                Assignment.objects.filter(pk=assignment.pk).update(state=remote.status, reviewed=timezone.now())
                if remote.status == Assignment.State.APPROVED:
                    reward_record(assignment, confirmed=True)
            report.updated += 1


def _hit_final(hit: Hit, remote: RemoteHit) -> bool:
    """Closed at the provider, nobody holding a place, and every submission reviewed."""
    if remote.status == "disposed":
        return True
    if remote.status != "review" or remote.pending:
        return False
    return not hit.assignments.filter(state=Assignment.State.SUBMITTED).exists()


def _finish_if_final(batch: Batch, provider: Any) -> None:
    batch.refresh_from_db(fields=["state", "final"])
    if batch.final or batch.state not in Batch.SYNCING_STATES:
        return
    if provider.pulls_submissions:
        final = not batch.hits.exclude(provider_hit_id="").filter(final=False).exists()
        final = final and batch.state != Batch.State.PUBLISHING
    else:
        final = batch.state != Batch.State.PUBLISHED and batch.state != Batch.State.PUBLISHING and not (
            Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).exists())
    if final:
        Batch.objects.filter(pk=batch.pk).update(final=True)


def submission_store(batch: Batch, hit: Hit, submission: Submission, task_type: TaskType,
                      report: SyncReport) -> None:
    existing = Assignment.objects.filter(provider_assignment_id=submission.provider_assignment_id).first()
    state = _STATE[submission.status]
    if existing:
        if existing.state != state and existing.state == Assignment.State.SUBMITTED:
            # Reviewed at the provider (MTurk approves by itself after its delay): the provider paid.
            existing.state = state
            existing.reviewed = timezone.now()
            existing.save(update_fields=["state", "reviewed"])
            if state == Assignment.State.APPROVED:
                reward_record(existing, confirmed=True)
            report.updated += 1
        return
    worker, _ = Worker.objects.get_or_create(provider=batch.provider, external_id=submission.worker_id)
    raw = {key: value for key, value in submission.raw_answers.items() if key != "assignmentId"}
    answers, feedback, flag = None, "", ""
    if submission.unreadable:
        raw = {"_unreadable": submission.unreadable}
        flag = "the answers could not be read; look at them before approving"
        report.flagged += 1
    else:
        try:
            answers = task_type.parse_answers(hit.ordered_items(), raw)
        except AnswerError as error:
            report.invalid += 1
            feedback = f"not usable: {error}"
    refusal = _refusal(batch, worker) or _author_refusal(hit, worker)
    if refusal and not flag:
        # Work the provider let through from someone we would refuse (a revoked qualification, a block):
        # kept, and left for a person, never approved in bulk.
        flag = f"submitted by a worker we refuse: {refusal}"
        report.flagged += 1
    try:
        with transaction.atomic():
            assignment = Assignment.objects.create(
                hit=hit, worker=worker, provider_assignment_id=submission.provider_assignment_id, state=state,
                claimed=submission.submitted, submitted=submission.submitted, raw_answers=raw, answers=answers,
                feedback=feedback, flag=flag)
            if answers is not None and not flag:
                task_type.on_submitted(assignment)
            if state == Assignment.State.APPROVED:
                reward_record(assignment, confirmed=True)
    except IntegrityError:
        return  # stored by a sync running beside this one
    if answers is not None and not flag:
        report.new += 1


# --- review and payment --------------------------------------------------------------

def assignment_approve(*, assignment: Assignment, feedback: str = "") -> Assignment:
    return _review(assignment, Assignment.State.APPROVED, feedback)


def assignment_reject(*, assignment: Assignment, feedback: str, category: str = "") -> Assignment:
    """Reject submitted work with feedback the worker reads (Prolific also needs a category, and 100
    characters of feedback: the provider says so before anything is sent)."""
    if not feedback.strip():
        raise CrowdError("a rejection needs feedback telling the worker why")
    return _review(assignment, Assignment.State.REJECTED, feedback, category)


def _review(assignment: Assignment, state: str, feedback: str, category: str = "") -> Assignment:
    """Approve or reject submitted work at the provider, then here; doing it twice is a no-op.

    Approving writes the reward (and the provider's fee) to the ledger first and confirms it once the
    provider has approved. Work the provider approved by itself in the meantime is recorded as approved
    (it was paid), and the caller is told so through `assignment.review_note`.
    """
    assignment.review_note = ""
    if assignment.state == state:
        return assignment
    if assignment.state != Assignment.State.SUBMITTED:
        verb = "approved" if state == Assignment.State.APPROVED else "rejected"
        raise CrowdError(f"assignment {assignment.pk} is {assignment.state}; only submitted work can be {verb}")
    provider = get_provider(assignment.hit.batch.provider)
    if state == Assignment.State.APPROVED:
        reward_record(assignment, confirmed=False)
    try:
        if state == Assignment.State.APPROVED:
            provider.approve(assignment, feedback)
        else:
            provider.reject(assignment, feedback, category)
    except NotReviewable as error:
        if error.status not in (Assignment.State.APPROVED, Assignment.State.REJECTED):
            raise
        assignment.state, assignment.reviewed = error.status, timezone.now()
        assignment.save(update_fields=["state", "reviewed"])
        if error.status == Assignment.State.APPROVED:
            reward_record(assignment, confirmed=True)
        else:
            reward_cancel(assignment)
        if error.status != state:
            raise CrowdError(f"assignment {assignment.pk} was already {error.status} at {provider.name} (for "
                             f"instance automatically, after the approval delay); it cannot be {state} now") from None
        assignment.review_note = f"already {error.status} at {provider.name}"
        return assignment
    assignment.state = state
    assignment.feedback = feedback
    assignment.reviewed = timezone.now()
    assignment.save(update_fields=["state", "feedback", "reviewed"])
    if state == Assignment.State.APPROVED:
        reward_record(assignment, confirmed=True)
    return assignment


def reward_record(assignment: Assignment, *, confirmed: bool) -> Payment:
    """The assignment's reward and the provider's fee on it, in the ledger (once, whoever approved it).

    An intent (before the provider is asked to approve) is checked against the budgets with the batch row
    locked; a reward the provider has paid already (`confirmed`: approved by itself) is a fact and recorded."""
    provider = get_provider(assignment.hit.batch.provider)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=assignment.hit.batch_id)
        reward = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.REWARD).first()
        if reward is None:
            amount = money(batch.reward)
            fee = provider.reward_fee(amount, batch.assignments_per_hit, bool(batch.requirements.get("masters")))
            if not confirmed:
                budget_check(batch=batch, reward=amount + fee,
                             what=f"approving assignment {assignment.pk} (a reward of {amount} and {money(fee)} "
                                  f"{provider.name} fee)")
            reward = Payment.objects.create(assignment=assignment, kind=Payment.Kind.REWARD, batch=batch,
                                            worker_id=assignment.worker_id, amount=amount, reason="reward")
            Payment.objects.create(assignment=assignment, kind=Payment.Kind.FEE, batch=batch,
                                   worker_id=assignment.worker_id, amount=fee, reason=f"{provider.name} fee",
                                   fee_of=reward)
        if confirmed and reward.state != Payment.State.CONFIRMED:
            payment_confirm(reward)
    return reward


def reward_cancel(assignment: Assignment) -> None:
    for payment in Payment.objects.filter(assignment=assignment, state=Payment.State.INTENDED,
                                          kind__in=[Payment.Kind.REWARD, Payment.Kind.FEE]):
        payment.state, payment.error = Payment.State.FAILED, "the work was not approved"
        payment.save(update_fields=["state", "error"])


def payment_confirm(payment: Payment, reference: str = "") -> None:
    now = timezone.now()
    Payment.objects.filter(pk=payment.pk).update(state=Payment.State.CONFIRMED, confirmed=now, error="",
                                                 provider_reference=reference or payment.provider_reference)
    Payment.objects.filter(fee_of=payment).update(state=Payment.State.CONFIRMED, confirmed=now)
    payment.state, payment.confirmed = Payment.State.CONFIRMED, now


# --- budgets --------------------------------------------------------------------------------

SPENDING_STATES = (Batch.State.PUBLISHING, Batch.State.PUBLISHED, Batch.State.COMPLETED, Batch.State.EXPIRED,
                   Batch.State.CANCELLED)


def committed(*, batch_ids: Sequence[int], rewards: Mapping[int, Decimal] | None = None,
              bonuses: Mapping[int, Decimal] | None = None,
              estimates: Mapping[int, Decimal] | None = None) -> Decimal:
    """What the batches have spent or promised, fees included: each published batch's places at their cost
    (or what its rewards came to, when more), and every bonus; nothing that failed. `rewards`, `bonuses` and
    `estimates` add what is about to be claimed, per batch."""
    rewards, bonuses, estimates = rewards or {}, bonuses or {}, estimates or {}
    kinds = {"reward": Q(kind=Payment.Kind.REWARD) | Q(kind=Payment.Kind.FEE, fee_of__kind=Payment.Kind.REWARD),
             "bonus": Q(kind=Payment.Kind.BONUS) | Q(kind=Payment.Kind.FEE, fee_of__kind=Payment.Kind.BONUS)}
    ledger = (Payment.objects.filter(batch_id__in=batch_ids).exclude(state=Payment.State.FAILED)
              .values("batch_id").annotate(**{name: Coalesce(Sum("amount", filter=q), Decimal(0))
                                              for name, q in kinds.items()}).order_by())
    found: dict[int, tuple[Decimal, Decimal]] = {row["batch_id"]: (row["reward"], row["bonus"])  # type: ignore[misc]
                                                 for row in ledger}
    total = Decimal(0)
    for batch in Batch.objects.filter(pk__in=batch_ids):
        paid_rewards, paid_bonuses = found.get(batch.pk, (Decimal(0), Decimal(0)))
        estimate = estimates.get(batch.pk)
        if estimate is None:
            estimate = batch_estimate_cost(batch=batch) if batch.state in SPENDING_STATES else Decimal(0)
        total += max(estimate, paid_rewards + rewards.get(batch.pk, Decimal(0)))
        total += paid_bonuses + bonuses.get(batch.pk, Decimal(0))
    return total


def budget_check(*, batch: Batch, what: str, reward: Decimal = Decimal(0), bonus: Decimal = Decimal(0),
                 estimate: Decimal | None = None) -> None:
    """Refuse, naming the amounts, what would take the batch's budget or one above it (the project's) past
    its limit. Call it inside the transaction that claims the money, with the batch row locked, so that two
    claims never both fit under the same budget."""
    scopes = ([(f"batch {batch.pk}", batch.budget, [batch.pk])] if batch.budget is not None else [])
    scopes += extensions.budgets(batch)
    for name, limit, ids in scopes:
        extra = {"rewards": {batch.pk: reward}, "bonuses": {batch.pk: bonus},
                 "estimates": {batch.pk: estimate} if estimate is not None else None}
        after = committed(batch_ids=ids, **extra)
        if after <= limit:
            continue
        before = committed(batch_ids=ids)
        already = (f" ({money(before)} spent or promised already, {money(max(limit - before, Decimal(0)))} left)"
                   if before < after else "")
        raise BudgetExceeded(f"{what} would take {name} to {money(after)}, over its budget of {money(limit)}"
                             f"{already}; raise the budget or pay less")


# --- bonuses ---------------------------------------------------------------------------------

def worker_bonus(*, worker: Worker, assignment: Assignment, amount: Decimal | str, reason: str) -> Payment:
    """Pay a bonus once: one bonus per assignment and reason, however often, and however many requests at
    once, this is called (`bonus_claim`, then `bonus_send`)."""
    return bonus_send(payment=bonus_claim(worker=worker, assignment=assignment, amount=amount, reason=reason))


def bonus_claim(*, worker: Worker, assignment: Assignment, amount: Decimal | str, reason: str) -> Payment:
    """The bonus and the provider's fee on it written to the ledger as an intent, within the budgets, in one
    transaction with the batch row locked; the same bonus claimed again is the row already there."""
    try:
        amount = money(amount)
    except ArithmeticError:
        raise CrowdError(f"a bonus amount is a number like 0.50, not {str(amount)[:20]!r}", field="amount") from None
    if not amount.is_finite() or amount <= 0 or amount >= Decimal("1000000"):
        raise CrowdError("a bonus must be more than 0 and less than 1,000,000", field="amount")
    if assignment.worker_id != worker.pk:
        raise CrowdError(f"assignment {assignment.pk} was not done by worker {worker}")
    if not reason.strip():
        raise CrowdError("say why the bonus is paid; the worker reads it", field="reason")
    batch = assignment.hit.batch
    provider = get_provider(batch.provider)
    fee = provider.bonus_fee(amount)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        payment = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.BONUS, reason=reason).first()
        if payment is None:
            budget_check(batch=batch, bonus=amount + fee, what=f"a bonus of {amount} (and {money(fee)} "
                                                               f"{provider.name} fee) on assignment {assignment.pk}")
            payment = Payment.objects.create(assignment=assignment, kind=Payment.Kind.BONUS, reason=reason,
                                             batch=batch, worker=worker, amount=amount)
            Payment.objects.create(assignment=assignment, kind=Payment.Kind.FEE, batch=batch, worker=worker,
                                   amount=fee, reason=f"{provider.name} fee on a bonus", fee_of=payment)
    if payment.amount != amount:
        raise CrowdError(f"a bonus of {money(payment.amount)} for {reason!r} on assignment {assignment.pk} exists "
                         f"({payment.state}); a different amount needs another reason")
    return payment


def bonus_send(*, payment: Payment) -> Payment:
    """Ask the provider to pay a claimed bonus, once.

    The payment is taken for sending in a transaction of its own (row locked on PostgreSQL; SQLite's
    IMMEDIATE transactions queue writers), so of N requests at once one asks the provider and the others are
    told it is in hand. The key is the provider's idempotency token on every attempt, and whenever an earlier
    attempt may have reached the provider (its answer was lost, the process died, or the provider says the
    key was used) the bonus is looked up there first and sent only if it is not there: a lost answer never
    pays twice, whether the retry comes a second or a week later.
    """
    now = timezone.now()
    with transaction.atomic():
        payment = Payment.objects.select_for_update().select_related("assignment", "worker", "batch").get(
            pk=payment.pk)
        provider = get_provider(payment.batch.provider)
        if payment.state == Payment.State.CONFIRMED:
            return payment
        if payment.state == Payment.State.FAILED:
            raise CrowdError(f"bonus {payment.pk} failed for good ({payment.error}); claim a new one")
        lease = timedelta(seconds=settings.PAYMENT_LEASE_SECONDS)
        if payment.sending_since is not None and payment.sending_since > now - lease:
            raise PaymentInFlight(f"bonus {payment.pk} of {money(payment.amount)} is being paid by another request "
                                  f"(since {payment.sending_since:%H:%M:%S}); it is paid once, and the ledger says "
                                  f"when it is confirmed")
        looked_for = payment.attempts > 0
        payment.attempts += 1
        payment.sending_since = now
        payment.save(update_fields=["attempts", "sending_since"])
    try:
        if looked_for and _bonus_found(provider, payment):
            return payment
        try:
            reference = provider.send_bonus(payment)
        except DuplicateRequest as error:
            if _bonus_found(provider, payment):
                return payment
            Payment.objects.filter(pk=payment.pk).update(error=str(error))
            raise ProviderError(f"{error}; {provider.name} says this bonus was requested before but lists no such "
                                f"payment: run `manage.py hits reconcile {payment.batch_id}` before trying "
                                f"again") from error
        except ProviderError as error:
            Payment.objects.filter(pk=payment.pk).update(error=str(error))
            raise
        payment_confirm(payment, reference)
        return payment
    finally:
        Payment.objects.filter(pk=payment.pk).update(sending_since=None)


def _bonus_found(provider: Any, payment: Payment) -> bool:
    """Whether the provider paid this bonus already; if so the ledger says so too.

    A provider that keeps no reason with a bonus (Prolific lists amounts only) paid this one when it
    lists more bonuses of this amount on the assignment than the ledger has confirmed there."""
    remote = provider.find_bonuses(payment.assignment)
    for found in remote:
        if found.amount == payment.amount and found.reason == payment.reason:
            payment_confirm(payment, found.reference or payment.provider_reference)
            return True
    unnamed = sum(1 for found in remote if not found.reason and found.amount == payment.amount)
    confirmed = Payment.objects.filter(assignment=payment.assignment, kind=Payment.Kind.BONUS, amount=payment.amount,
                                       state=Payment.State.CONFIRMED).exclude(pk=payment.pk).count()
    if unnamed > confirmed:
        payment_confirm(payment, payment.provider_reference)
        return True
    return False


def worker_pay(*, worker: Worker) -> dict[str, Any]:
    """What a worker has done and earned: assignments per state, confirmed rewards and bonuses."""
    done = (Assignment.objects.filter(worker=worker).exclude(state=Assignment.State.CLAIMED)
            .values("state").annotate(n=Count("pk")))
    by_state = {row["state"]: row["n"] for row in done}
    paid = dict(Payment.objects.filter(worker=worker, state=Payment.State.CONFIRMED,
                                       kind__in=[Payment.Kind.REWARD, Payment.Kind.BONUS])
                .values_list("kind").annotate(total=Sum("amount")).order_by())
    rewards, bonuses = paid.get(Payment.Kind.REWARD) or Decimal("0"), paid.get(Payment.Kind.BONUS) or Decimal("0")
    return {"states": by_state, "rewards": money(rewards), "bonuses": money(bonuses),
            "total": money(rewards + bonuses), "waiting": by_state.get(Assignment.State.SUBMITTED, 0)}


def worker_block(*, worker: Worker, reason: str) -> Worker:
    if not reason.strip():
        raise CrowdError("say why the worker is blocked; the reason is kept and sent to the provider")
    get_provider(worker.provider).block(worker, reason)
    worker.blocked = True
    worker.blocked_reason = reason
    worker.save(update_fields=["blocked", "blocked_reason"])
    return worker


def items_using(sentence_ids: list[int]) -> int:
    """How many batch items show these sentences (registered in filtering.extensions.SENTENCE_USES)."""
    return Item.objects.filter(payload__sentence_pk__in=sentence_ids).count() if sentence_ids else 0


def worker_sanction(*, worker: Worker, reason: str, block: bool = True, revoke: bool = False) -> Worker:
    """One action for a worker whose quality fell: block them, revoke their qualifications, or both.
    A revocation also keeps them out of this requester's HITs at the provider, for good."""
    if block and not worker.blocked:
        worker_block(worker=worker, reason=reason)
    if revoke and not extensions.revoke(worker, reason):
        raise CrowdError(f"worker {worker} holds no qualification to revoke")
    return worker


__all__ = ["BudgetExceeded", "CrowdError", "PaymentInFlight", "ProviderError"]
