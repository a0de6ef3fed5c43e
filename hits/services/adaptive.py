"""Adaptive redundancy: a batch stops buying votes no remaining vote can change, and re-packs the items that
still need votes into new HITs (opt-in per batch, `Batch.adaptive`).

After each submission (in-house, or a provider sync that brought submissions) `batch_adapt`:

1. asks the task type's settled-item rule (`hits.extensions.SETTLED`; for Subtask 1 the paper's rules, see
   `aggregation.maths.settled`) which items no vote can change, and works out every other item's need: the
   batch's votes per item less the votes it has or has in flight (claimed places);
2. retires each open HIT most of whose items are settled (`REPACK_SHARE`): it keeps the places taken and
   offers no more (a provider's HIT expires there), so nobody is paid for votes nobody needs;
3. packs the items whose need no open place covers into new HITs of the batch's size, each offering the most
   votes one of its items still needs; it waits until it has a full HIT, or until nothing else in the batch
   has a free place. Nobody gets an item twice: everyone who voted on it or holds it is excluded from it
   (`Item.excluded_workers`); sentences with the same voters are packed together, and a HIT stops growing
   before the workers it excludes pass `VOTER_CAP` × the batch's workers a HIT.

What must be decided is the batch's mode: "outcomes" (the paper's outcomes: two "yes" and a "no" can only
be discarded; little to save, as its 4/5 negatives need the fifth vote) or "positives" (positive or not: one
"no" settles an item, which the aggregation then discards rather than guess which negative it would have
been; for a batch whose purpose is its positives).

Known answers (gold) are never re-packed: worker quality is measured on the HITs as first made, and a
worker who saw a known answer could not take a HIT that repeats it. The reward of a re-packed HIT is the
batch's reward a HIT. Early stopping never changes an outcome it decides: an item is settled only when
every way its missing votes could fall gives the same outcome (`bench/adaptive_bench.py` checks that on
the released labels).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Count, Max

from core.errors import CrowdsetError
from hits import selectors
from hits.extensions import SETTLED
from hits.models import Assignment, Batch, Hit, HitItem, Item
from hits.providers import get_provider
from hits.providers.base import ProviderError, money
from hits.services.publishing import batch_publish

# A HIT is retired once this share of its sentences is settled: past it, most of its remaining places
# would buy votes nobody needs.
REPACK_SHARE = 0.5
# The workers excluded from a re-packed HIT stay within this many times the batch's workers a HIT.
VOTER_CAP = 2
IN_FLIGHT = (Assignment.State.CLAIMED, Assignment.State.SUBMITTED, Assignment.State.APPROVED)


def adaptive_refusal(*, provider: str, task_type: str, mode: str) -> str | None:
    """Why a batch cannot be adaptive in `mode`, or None."""
    if mode not in Batch.Adaptive.values:
        return f"adaptive redundancy is one of {', '.join(repr(v) for v in Batch.Adaptive.values if v)}, not {mode!r}"
    if task_type not in SETTLED:
        return (f"adaptive redundancy needs a rule for when a {task_type} item is settled; it has none "
                f"(Subtask 1 has the paper's rules)")
    if provider == "prolific":
        return ("adaptive redundancy withdraws places HIT by HIT, and a Prolific study's places only go up; "
                "use it in-house or on MTurk")
    return None


def _votes(batch: Batch) -> tuple[dict[int, int], dict[int, set[int]]]:
    """Each non-gold item's votes, in or in flight, and who gave or holds them."""
    votes: dict[int, int] = dict.fromkeys(Item.objects.filter(batch=batch, is_gold=False).values_list("pk", flat=True),
                                          0)
    voters: dict[int, set[int]] = defaultdict(set)
    for item, worker in (HitItem.objects.filter(hit__batch=batch, item__is_gold=False,
                                                hit__assignments__state__in=IN_FLIGHT)
                         .values_list("item_id", "hit__assignments__worker_id")):
        votes[item] += 1
        voters[item].add(worker)
    return votes, voters


def _needs(batch: Batch, votes: dict[int, int], settled: set[int]) -> dict[int, int]:
    """Each non-gold item's votes still to buy: none once settled."""
    return {item: 0 if item in settled else max(0, batch.assignments_per_hit - count) for item, count in votes.items()}


def batch_adapt(*, batch: Batch) -> dict[str, int]:
    """One pass of adaptive redundancy over `batch` (see the module's doc); returns what this pass did."""
    done = {"retired": 0, "repacked": 0, "withdrawn": 0, "added": 0}
    if not batch.adaptive:
        return done
    rule = SETTLED.get(batch.task_type)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        # Completed too: the last place of the last HIT was just filled, and sentences may still need votes.
        if batch.state not in (Batch.State.PUBLISHED, Batch.State.COMPLETED):
            return done
        votes, voters = _votes(batch)
        needs = _needs(batch, votes, rule(batch))
        taken = dict(Assignment.objects.filter(hit__batch=batch).live()
                     .values("hit").annotate(n=Count("pk")).values_list("hit", "n"))
        # Pending HITs (re-packed, published once this commits) cover their items too, and are never retired.
        open_hits = [hit for hit in batch.hits.filter(state__in=(Hit.State.PENDING, Hit.State.PUBLISHED))
                     .select_related("batch") if taken.get(hit.pk, 0) < hit.place_count]
        members = defaultdict(list)
        for hit_id, item_id in HitItem.objects.filter(hit__in=open_hits, item__is_gold=False).values_list(
                "hit_id", "item_id"):
            members[hit_id].append(item_id)
        free: dict[int, int] = defaultdict(int)
        for hit in open_hits:
            items = members[hit.pk]
            settled = sum(1 for item in items if needs[item] == 0)
            if hit.state == Hit.State.PUBLISHED and items and settled >= REPACK_SHARE * len(items):
                _retire(hit, taken.get(hit.pk, 0))
                done["retired"] += 1
                done["withdrawn"] += hit.place_count - taken.get(hit.pk, 0)
                continue
            for item in items:
                free[item] += hit.place_count - taken.get(hit.pk, 0)
        # Items whose need no open place covers: the pool for new HITs.
        pool = {item: need - free[item] for item, need in needs.items() if need > free[item]}
        size = batch.items_per_hit
        still_open = any(free.values())
        if pool and (len(pool) >= size or not still_open):
            added = _repack(batch, pool, voters, size, full_only=still_open)
            done["repacked"], done["added"] = len(added), sum(hit.places or 0 for hit in added)
        elif batch.hits.filter(state=Hit.State.PENDING).exists():
            _publish_soon(batch)  # re-packed HITs a publish refused (the budget): this pass tries again
        if done["retired"] and not batch.hits.filter(state__in=(Hit.State.PENDING, Hit.State.PUBLISHED)).exists():
            Batch.objects.filter(pk=batch.pk).update(state=Batch.State.COMPLETED)
        if any(done.values()):
            transaction.on_commit(functools.partial(selectors.open_hits_changed, batch))
            report = dict(Batch.objects.get(pk=batch.pk).adaptive_report)  # as publishing left it (its note)
            for key, value in done.items():
                report[key] = report.get(key, 0) + value
            Batch.objects.filter(pk=batch.pk).update(adaptive_report=report)
    return done


def _retire(hit: Hit, taken: int) -> None:
    """No more places: the HIT keeps the ones taken and completes when they are in. At a provider it expires
    (work taken may still come in, and sync brings it)."""
    submitted = hit.assignments.done().count()
    if hit.batch.provider != "inhouse":
        state = Hit.State.EXPIRED
        if hit.provider_hit_id:
            transaction.on_commit(functools.partial(_expire_remote, hit))
    elif submitted < taken:
        state = Hit.State.PUBLISHED  # no free place left: nobody new can claim it
    else:
        state = Hit.State.COMPLETED if taken else Hit.State.EXPIRED
    Hit.objects.filter(pk=hit.pk).update(places=taken, state=state)


def _expire_remote(hit: Hit) -> None:
    try:
        get_provider(hit.batch.provider).expire_hit(hit)
    except ProviderError as error:
        # The HIT stays open at the provider: its places may still be taken, and sync brings what comes in.
        report = dict(Batch.objects.get(pk=hit.batch_id).adaptive_report)
        report["note"] = f"HIT {hit.number} could not be closed at {hit.batch.provider}: {error}"
        Batch.objects.filter(pk=hit.batch_id).update(adaptive_report=report)


def _repack(batch: Batch, pool: dict[int, int], voters: dict[int, set[int]], size: int,
            full_only: bool) -> list[Hit]:
    """New HITs of the pooled items, sentences with the same voters together. Publishing them checks the
    budget (`batch_publish`): over it they wait, pending, and the batch page says why."""
    parts = _parts(pool, voters, size, cap=VOTER_CAP * batch.assignments_per_hit)
    if full_only:
        parts = [part for part in parts if len(part) == size]
    if not parts:
        return []
    places = [max(pool[item] for item in part) for part in parts]
    last = batch.hits.aggregate(last=Max("index"))["last"]
    hits = Hit.objects.bulk_create(Hit(batch=batch, index=last + 1 + n, places=count)
                                   for n, count in enumerate(places))
    HitItem.objects.bulk_create(HitItem(hit=hit, item_id=item, position=position)
                                for hit, part in zip(hits, parts, strict=True) for position, item in enumerate(part))
    Item.excluded_workers.through.objects.bulk_create(
        [Item.excluded_workers.through(item_id=item, worker_id=worker)
         for part in parts for item in part for worker in voters[item]], ignore_conflicts=True)
    if batch.state == Batch.State.COMPLETED:  # it has work again
        Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHED, final=False)
    _publish_soon(batch)
    return hits


def _publish_soon(batch: Batch) -> None:
    if batch.provider == "inhouse":
        _publish(batch.pk)  # nothing leaves the site: at once
    else:
        transaction.on_commit(functools.partial(_publish, batch.pk))


def _parts(pool: dict[int, int], voters: dict[int, set[int]], size: int, cap: int) -> list[list[int]]:
    """The pooled items in HITs of at most `size`, filled greedily in order of their voters, while the
    workers excluded from a HIT (every item's voters together) stay within `cap`: past it, a small crowd
    could have nobody left who may take the HIT."""
    remaining = sorted(pool, key=lambda item: (sorted(voters[item]), -pool[item], item))
    parts = []
    while remaining:
        part: list[int] = []
        union: set[int] = set()
        rest = []
        for item in remaining:
            if len(part) < size and (not part or len(union | voters[item]) <= cap):
                part.append(item)
                union |= voters[item]
            else:
                rest.append(item)
        parts.append(part)
        remaining = rest
    return parts


def _publish(batch_id: int) -> None:
    batch = Batch.objects.get(pk=batch_id)
    report = dict(batch.adaptive_report)
    try:
        batch_publish(batch=batch)
    except CrowdsetError as error:
        # The new HITs stay pending; the batch page says why, and the next pass tries again.
        report["unpublished"] = f"the re-packed HITs are not published yet: {error}"
    else:
        report.pop("unpublished", None)
    Batch.objects.filter(pk=batch_id).update(adaptive_report=report)


def adaptive_savings(batch: Batch) -> dict[str, Any]:
    """What adaptive redundancy saved against buying every vote: sentence votes not bought (settled items'
    missing votes), places (assignments) and money, the provider's fees included."""
    report = batch.adaptive_report or {}
    votes, _ = _votes(batch)
    settled = SETTLED.get(batch.task_type)(batch) if batch.task_type in SETTLED else set()
    early = [item for item in settled if item in votes and votes[item] < batch.assignments_per_hit]
    saved_votes = sum(batch.assignments_per_hit - votes[item] for item in early)
    withdrawn, added = report.get("withdrawn", 0), report.get("added", 0)
    per_place = get_provider(batch.provider).cost_per_assignment(
        batch.reward, batch.assignments_per_hit, bool(batch.requirements.get("masters")))
    saved = withdrawn - added
    return {"retired": report.get("retired", 0), "repacked": report.get("repacked", 0), "withdrawn": withdrawn,
            "added": added, "settled": len(early),
            "note": "; ".join(filter(None, [report.get("note"), report.get("unpublished")])),
            "saved_votes": saved_votes, "fixed_votes": len(votes) * batch.assignments_per_hit,
            "saved_places": saved, "saved_money": money(Decimal(saved) * per_place)}
