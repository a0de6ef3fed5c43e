"""Workflows of crowd work: create, publish, claim, submit, sync, review, pay."""

import math
import random
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from hits import eligibility
from hits.models import Assignment, Batch, Bonus, Hit, HitItem, Item, Worker
from hits.providers import PROVIDERS, get_provider
from hits.providers.base import ProviderError, money
from hits.providers.mturk import request_token
from hits.signals import assignment_submitted
from hits.task_types import AnswerError, get_task_type


class CrowdError(ValueError):
    """A request the crowd services refuse; the message says why and what to do."""


class BudgetExceeded(CrowdError):
    pass


# --- batches --------------------------------------------------------------------

def batch_create(*, name, task_type, items, gold_items=(), provider="inhouse", items_per_hit=25,
                 assignments_per_hit=5, gold_rate=0.0, seed=0, reward=Decimal("0.50"), budget=None,
                 requirements=None, created_by=None, assignment_duration=3600, lifetime=7 * 24 * 3600):
    """Pack items into HITs: domains interleaved, gold mixed in, all decided by `seed`.

    `items` are dicts {"key", "group", "payload"} and may carry a known
    "gold_answer" (measured against, not a check); `gold_items` are the
    known-answer checks mixed into every HIT.
    Each HIT gets round(items_per_hit × gold_rate) gold items (no more than
    the pool holds) at seeded positions, and the other items are spread
    evenly so HIT sizes differ by at most one.
    """
    get_task_type(task_type)
    if provider not in PROVIDERS:
        raise CrowdError(f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}")
    if not 1 <= items_per_hit <= 100 or assignments_per_hit < 1:
        raise CrowdError("items_per_hit must be 1 to 100 (the paper used 20-30) and assignments_per_hit at least 1")
    items, gold_items = list(items), list(gold_items)
    if not items:
        raise CrowdError("a batch needs at least one item")
    keys = [item["key"] for item in items + gold_items]
    if len(set(keys)) != len(keys):
        raise CrowdError("item keys must be unique within a batch")
    rng = random.Random(seed)
    gold_per_hit = min(len(gold_items), round(items_per_hit * gold_rate)) if gold_rate else 0
    ordered = interleave(items, rng)
    hit_count = math.ceil(len(ordered) / max(1, items_per_hit - gold_per_hit))

    with transaction.atomic():
        batch = Batch.objects.create(
            name=name, task_type=task_type, provider=provider, items_per_hit=items_per_hit,
            assignments_per_hit=assignments_per_hit, gold_rate=gold_rate, seed=seed, reward=money(reward),
            budget=budget, requirements=requirements or {}, created_by=created_by,
            assignment_duration=assignment_duration, lifetime=lifetime,
        )
        stored = Item.objects.bulk_create(
            [Item(batch=batch, key=i["key"], group=i.get("group", ""), payload=i["payload"],
                  gold_answer=i.get("gold_answer")) for i in ordered]
            + [Item(batch=batch, key=g["key"], group=g.get("group", ""), payload=g["payload"], is_gold=True,
                    gold_answer=g["gold_answer"]) for g in gold_items]
        )
        real, gold = stored[:len(ordered)], stored[len(ordered):]
        hits = Hit.objects.bulk_create(Hit(batch=batch, index=index) for index in range(hit_count))
        hit_items = []
        gold_order = _gold_cycle(gold, rng)
        for hit, share in zip(hits, _even_split(real, hit_count), strict=True):
            chosen = []
            while len(chosen) < gold_per_hit:
                candidate = next(gold_order)
                if candidate not in chosen:  # a round may start with the item the last one ended on
                    chosen.append(candidate)
            members = share + chosen
            rng.shuffle(members)
            hit_items.extend(HitItem(hit=hit, item=item, position=p) for p, item in enumerate(members))
        HitItem.objects.bulk_create(hit_items)
    return batch


def interleave(items, rng):
    """Round-robin over groups (sorted), each group shuffled by `rng`."""
    groups = {}
    for item in items:
        groups.setdefault(item.get("group", ""), []).append(item)
    queues = []
    for name in sorted(groups):
        members = groups[name]
        rng.shuffle(members)
        queues.append(members)
    ordered = []
    for position in range(max(len(queue) for queue in queues)):
        ordered.extend(queue[position] for queue in queues if position < len(queue))
    return ordered


def _gold_cycle(gold, rng):
    """Gold items in rounds: each is used once before any is used again.

    A worker never sees an item twice in a batch, so a gold item in two HITs
    keeps a worker who took one from taking the other; a pool as large as the
    HITs need avoids that entirely.
    """
    while gold:
        round_ = list(gold)
        rng.shuffle(round_)
        yield from round_


def _even_split(items, parts):
    size, extra = divmod(len(items), parts)
    shares, start = [], 0
    for part in range(parts):
        end = start + size + (1 if part < extra else 0)
        shares.append(items[start:end])
        start = end
    return shares


def batch_estimate_cost(*, batch):
    provider = get_provider(batch.provider)
    per_assignment = provider.cost_per_assignment(batch.reward, batch.assignments_per_hit)
    return batch.hits.count() * batch.assignments_per_hit * per_assignment


def batch_publish(*, batch):
    """Publish every HIT not published yet. Safe to re-run after a crash or kill:
    each HIT records its provider id as soon as it has one, and the provider's
    create call is idempotent (MTurk: a UniqueRequestToken from our ids)."""
    if batch.state in (Batch.State.COMPLETED, Batch.State.EXPIRED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; create a new batch instead")
    estimate = batch_estimate_cost(batch=batch)
    if batch.budget is not None and estimate > batch.budget:
        raise BudgetExceeded(f"batch {batch.pk} would cost {estimate} (with provider fees) but its budget is "
                             f"{batch.budget}; raise the budget, lower the reward or use fewer assignments")
    provider = get_provider(batch.provider)
    balance = provider.available_balance()
    unpublished = batch.hits.filter(provider_hit_id="")
    needed = estimate * unpublished.count() / max(1, batch.hits.count())
    if balance is not None and balance < needed:
        raise BudgetExceeded(f"the {provider.name} account holds {balance}, and publishing batch {batch.pk} needs "
                             f"{money(needed)}; add funds first")
    Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHING)
    provider.prepare(batch)
    for hit in unpublished.select_related("batch"):
        provider_id = provider.publish_hit(hit, hit.ordered_items())
        now = timezone.now()
        Hit.objects.filter(pk=hit.pk, provider_hit_id="").update(
            provider_hit_id=provider_id, state=Hit.State.PUBLISHED, published=now,
            expires=now + timedelta(seconds=batch.lifetime))
    batch.state = Batch.State.PUBLISHED
    batch.published = batch.published or timezone.now()
    batch.save(update_fields=["state", "published"])
    return batch


def batch_expire(*, batch):
    provider = get_provider(batch.provider)
    for hit in batch.hits.filter(state=Hit.State.PUBLISHED):
        provider.expire_hit(hit)
    now = timezone.now()
    batch.hits.filter(state__in=[Hit.State.PUBLISHED, Hit.State.PENDING]).update(state=Hit.State.EXPIRED, expires=now)
    Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).update(state=Assignment.State.EXPIRED)
    batch.state = Batch.State.EXPIRED
    batch.save(update_fields=["state"])
    return batch


# --- in-house work: claim and submit ----------------------------------------------

def worker_for_user(user):
    worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=f"user-{user.pk}",
                                             defaults={"user": user})
    return worker


def assignment_claim(*, batch, worker):
    """Give `worker` a place in the next HIT of `batch` they may take, or None.

    The HIT row is locked while its places are counted, so two workers racing
    for the last place cannot both get it; the unique constraint on (HIT,
    worker) keeps one worker from two places in one HIT.
    """
    refusal = _refusal(batch, worker)
    if refusal:
        raise CrowdError(refusal)
    if batch.state != Batch.State.PUBLISHED:
        raise CrowdError(f"batch {batch.pk} is {batch.state}, not open for work")
    live = Assignment.objects.exclude(state__in=Assignment.DEAD_STATES)
    held = live.filter(hit__batch=batch, worker=worker)
    # Only gold items are in more than one HIT (batch_create puts every other item in exactly one,
    # and mixes gold in only at a gold rate), so only they can make a HIT one the worker has partly seen.
    seen_gold = list(HitItem.objects.filter(hit__assignments__in=held, item__is_gold=True)
                     .values_list("item_id", flat=True)) if batch.gold_rate else []
    # Counted per HIT in index order until 20 are found: the work stays small however many
    # assignments the batch has (a join and count over all of them grew with every submission).
    places_taken = live.filter(hit=OuterRef("pk")).values("hit").annotate(n=Count("pk")).values("n")
    candidates = (
        batch.hits.filter(state=Hit.State.PUBLISHED)
        .exclude(Exists(held.filter(hit=OuterRef("pk"))))
        .exclude(Exists(HitItem.objects.filter(hit=OuterRef("pk"), item_id__in=seen_gold)))
        .annotate(taken=Coalesce(Subquery(places_taken), 0))
        .filter(taken__lt=batch.assignments_per_hit)
        .order_by("index")
        .values_list("pk", flat=True)
    )
    for hit_id in list(candidates[:20]):
        try:
            with transaction.atomic():
                hit = Hit.objects.select_for_update().get(pk=hit_id)
                if hit.live_assignments().count() >= batch.assignments_per_hit:
                    continue
                now = timezone.now()
                return Assignment.objects.create(hit=hit, worker=worker, claimed=now,
                                                 deadline=now + timedelta(seconds=batch.assignment_duration))
        except IntegrityError:
            continue  # this worker claimed it in a parallel request
    return None


def assignment_submit(*, assignment, worker, raw_answers):
    """Store a worker's answers once. Returns (assignment, stored_now).

    A replay of the same submission returns the stored assignment unchanged;
    anything else that does not fit (another worker, time out, bad answers)
    is refused with a message.
    """
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().select_related("hit__batch").get(pk=assignment.pk)
        if assignment.state in (Assignment.State.SUBMITTED, Assignment.State.APPROVED, Assignment.State.REJECTED) \
                and assignment.worker_id == worker.pk:
            return assignment, False
        refusal = assignment.can_submit(worker) or _refusal(assignment.hit.batch, worker)
        if refusal:
            raise CrowdError(f"assignment {assignment.pk}: {refusal}")
        task_type = get_task_type(assignment.hit.batch.task_type)
        try:
            answers = task_type.parse_answers(assignment.hit.ordered_items(), raw_answers)
        except AnswerError as error:
            raise CrowdError(f"assignment {assignment.pk}: {error}") from None
        assignment.state = Assignment.State.SUBMITTED
        assignment.raw_answers = raw_answers
        assignment.answers = answers
        assignment.submitted = timezone.now()
        assignment.save(update_fields=["state", "raw_answers", "answers", "submitted"])
        assignment_submitted.send(sender=task_type.name, assignment=assignment)
        _complete_hit_if_done(assignment.hit)
    return assignment, True


def _refusal(batch, worker):
    if worker.blocked:
        return f"worker {worker} is blocked" + (f": {worker.blocked_reason}" if worker.blocked_reason else "")
    return eligibility.refusal(batch, worker)


def _complete_hit_if_done(hit):
    done = hit.assignments.filter(state__in=[Assignment.State.SUBMITTED, Assignment.State.APPROVED,
                                             Assignment.State.REJECTED]).count()
    if done >= hit.batch.assignments_per_hit and hit.state != Hit.State.COMPLETED:
        Hit.objects.filter(pk=hit.pk).update(state=Hit.State.COMPLETED)
        batch = hit.batch
        if not batch.hits.exclude(state=Hit.State.COMPLETED).exists():
            Batch.objects.filter(pk=batch.pk).update(state=Batch.State.COMPLETED)


def assignments_expire_overdue(*, now=None):
    """Free the places of claims whose time ran out; returns how many."""
    now = now or timezone.now()
    return Assignment.objects.filter(state=Assignment.State.CLAIMED, deadline__lt=now).update(
        state=Assignment.State.EXPIRED)


# --- sync from providers that hold the submissions --------------------------------

@dataclass
class SyncReport:
    new: int = 0
    updated: int = 0
    invalid: int = 0
    expired_claims: int = 0


_STATE = {"submitted": Assignment.State.SUBMITTED, "approved": Assignment.State.APPROVED,
          "rejected": Assignment.State.REJECTED}


def batch_sync(*, batch):
    report = SyncReport(expired_claims=assignments_expire_overdue())
    provider = get_provider(batch.provider)
    if provider.pulls_submissions:
        hits = {hit.provider_hit_id: hit for hit in batch.hits.exclude(provider_hit_id="")}
        task_type = get_task_type(batch.task_type)
        for submission in provider.fetch_submissions(batch):
            _store_submission(batch, hits[submission.provider_hit_id], submission, task_type, report)
    for hit in batch.hits.exclude(state=Hit.State.COMPLETED).select_related("batch"):
        _complete_hit_if_done(hit)
    return report


def _store_submission(batch, hit, submission, task_type, report):
    existing = Assignment.objects.filter(hit=hit, provider_assignment_id=submission.provider_assignment_id).first()
    if existing:
        state = _STATE[submission.status]
        if existing.state != state and existing.state == Assignment.State.SUBMITTED:
            existing.state = state
            existing.reviewed = timezone.now()
            existing.save(update_fields=["state", "reviewed"])
            report.updated += 1
        return
    worker, _ = Worker.objects.get_or_create(provider=batch.provider, external_id=submission.worker_id)
    raw = {key: value for key, value in submission.raw_answers.items() if key != "assignmentId"}
    try:
        answers = task_type.parse_answers(hit.ordered_items(), raw)
    except AnswerError as error:
        answers = None
        report.invalid += 1
        feedback = f"not usable: {error}"
    else:
        feedback = ""
        report.new += 1
    with transaction.atomic():
        assignment = Assignment.objects.create(
            hit=hit, worker=worker, provider_assignment_id=submission.provider_assignment_id,
            state=_STATE[submission.status], claimed=submission.submitted, submitted=submission.submitted,
            raw_answers=raw, answers=answers, feedback=feedback,
        )
        if answers is not None:
            assignment_submitted.send(sender=task_type.name, assignment=assignment)


# --- review and payment --------------------------------------------------------------

def assignment_approve(*, assignment, feedback=""):
    return _review(assignment, Assignment.State.APPROVED, feedback)


def assignment_reject(*, assignment, feedback):
    if not feedback.strip():
        raise CrowdError("a rejection needs feedback telling the worker why")
    return _review(assignment, Assignment.State.REJECTED, feedback)


def _review(assignment, state, feedback):
    """Approve or reject submitted work at the provider, then here; doing it twice is a no-op."""
    if assignment.state == state:
        return assignment
    if assignment.state != Assignment.State.SUBMITTED:
        verb = "approved" if state == Assignment.State.APPROVED else "rejected"
        raise CrowdError(f"assignment {assignment.pk} is {assignment.state}; only submitted work can be {verb}")
    provider = get_provider(assignment.hit.batch.provider)
    if state == Assignment.State.APPROVED:
        provider.approve(assignment, feedback)
    else:
        provider.reject(assignment, feedback)
    assignment.state = state
    assignment.feedback = feedback
    assignment.reviewed = timezone.now()
    assignment.save(update_fields=["state", "feedback", "reviewed"])
    return assignment


def worker_bonus(*, worker, assignment, amount, reason):
    """Pay a bonus once: the same worker, assignment and reason never pay twice."""
    amount = money(amount)
    if amount <= 0:
        raise CrowdError("a bonus must be more than 0")
    if assignment.worker_id != worker.pk:
        raise CrowdError(f"assignment {assignment.pk} was not done by worker {worker}")
    token = request_token("bonus", assignment.pk, reason)
    existing = Bonus.objects.filter(token=token).first()
    if existing:
        return existing
    get_provider(assignment.hit.batch.provider).send_bonus(worker, assignment, amount, reason, token)
    return Bonus.objects.create(worker=worker, assignment=assignment, amount=amount, reason=reason, token=token)


def worker_pay(*, worker):
    """What a worker has done and earned: assignments per state, rewards of approved work, bonuses."""
    done = (Assignment.objects.filter(worker=worker).exclude(state=Assignment.State.CLAIMED)
            .values("state").annotate(n=Count("pk"), reward=Sum("hit__batch__reward")))
    by_state = {row["state"]: row for row in done}
    approved = by_state.get(Assignment.State.APPROVED, {})
    bonuses = Bonus.objects.filter(worker=worker).aggregate(total=Sum("amount"))["total"] or Decimal("0")
    earned = approved.get("reward") or Decimal("0")
    return {"states": {state: row["n"] for state, row in by_state.items()}, "rewards": money(earned),
            "bonuses": money(bonuses), "total": money(earned + bonuses),
            "waiting": by_state.get(Assignment.State.SUBMITTED, {}).get("n", 0)}


def worker_block(*, worker, reason):
    if not reason.strip():
        raise CrowdError("say why the worker is blocked; the reason is kept and sent to the provider")
    get_provider(worker.provider).block(worker, reason)
    worker.blocked = True
    worker.blocked_reason = reason
    worker.save(update_fields=["blocked", "blocked_reason"])
    return worker


__all__ = ["BudgetExceeded", "CrowdError", "ProviderError"]
