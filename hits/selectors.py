"""Read models of crowd work for the organizer's pages: a fixed number of queries for any number of batches."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.utils import timezone

from accounts import access
from hits import extensions
from hits.models import Assignment, Batch, Hit, HitItem, Payment, Worker, hit_places, with_room
from hits.providers import get_provider
from hits.providers.base import money
from hits.task_types import TASK_TYPES


def _share(done: int | Decimal, total: int | Decimal | None) -> int:
    return round(100 * done / total) if total else 0


def batch_rows(batches: Sequence[Batch]) -> list[dict[str, Any]]:
    """Each batch with HITs published, assignments by state, cost spent / estimated / budget. Three queries."""
    ids = [batch.pk for batch in batches]
    hits = {row["batch"]: row for row in Hit.objects.filter(batch__in=ids).values("batch").annotate(
        total=Count("pk"), published=Count("pk", filter=~Q(provider_hit_id="")), places=Sum(hit_places()))
        .order_by()}
    states: dict[int, dict[str, int]] = defaultdict(dict)
    for batch_id, state, n in (Assignment.objects.filter(hit__batch__in=ids).values_list("hit__batch", "state")
                               .annotate(n=Count("pk")).order_by()):
        states[batch_id][state] = n
    spent = dict(Payment.objects.filter(batch__in=ids, state=Payment.State.CONFIRMED).values_list("batch")
                 .annotate(total=Sum("amount")).order_by())
    rows = []
    for batch in batches:
        counts = hits.get(batch.pk, {"total": 0, "published": 0, "places": 0})
        by_state = states[batch.pk]
        per_assignment = get_provider(batch.provider).cost_per_assignment(batch.reward, batch.assignments_per_hit)
        approved = by_state.get(Assignment.State.APPROVED, 0)
        paid = spent.get(batch.pk) or Decimal("0")
        needed = counts["places"] or 0
        submitted = sum(by_state.get(state, 0) for state in Assignment.DONE_STATES)
        rows.append({
            "batch": batch, "hits": counts, "states": by_state, "needed": needed, "submitted": submitted,
            "approved": approved, "spent": money(paid), "estimate": money(needed * per_assignment),
            "published_share": _share(counts["published"], counts["total"]),
            "submitted_share": _share(submitted, needed), "approved_share": _share(approved, needed),
            "over_budget": batch.budget is not None and paid > batch.budget,
            "budget_share": _share(paid, batch.budget) if batch.budget else None})
    return rows


def work_for(worker: Worker) -> dict[str, Any]:
    """The in-house work a worker sees: what they hold, the batches they may take a HIT of (their projects', or
    open to the site: accounts.access) with HITs left for them, HIT sizes, pay with its currency and time limit,
    and the batches that first need something of them (a screening test). Batches with nothing left for them are
    not shown."""
    held = list(Assignment.objects.filter(worker=worker, state=Assignment.State.CLAIMED, hit__batch__provider="inhouse")
                .select_related("hit__batch").order_by("claimed"))
    batches = list(access.rows(worker.user, Batch.objects.filter(provider="inhouse", state=Batch.State.PUBLISHED),
                               access.WORK).order_by("pk"))
    if worker.blocked or not batches:
        return {"held": held, "open": [], "needs": [], "blocked": worker.blocked}
    # HITs with a free place, less those the worker has a place in (or gave back): the batch's count is a count
    # over all its HITs, kept for the whole crowd until a HIT fills or a place frees; the worker's part is exact.
    open_hits = _open_hits(batches)
    mine = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker).filter(
        ~Q(state__in=Assignment.DEAD_STATES) | Q(returned=True))
    own = dict(with_room(Hit.objects.filter(batch__in=open_hits, state=Hit.State.PUBLISHED).filter(Exists(mine)),
                         timezone.now()).values_list("batch").annotate(n=Count("pk")).order_by())
    left = {batch_id: max(0, count - own.get(batch_id, 0)) for batch_id, count in open_hits.items()}
    sizes = hit_sizes(batches)
    holding = {assignment.hit.batch_id: assignment for assignment in held}
    listings = _listings(batches)
    rows, needs = [], []
    for batch in batches:
        refusal = extensions.refusal(batch, worker)
        size = sizes.get(batch.pk) or (batch.items_per_hit, batch.items_per_hit)
        listing = listings.get(batch.pk, {})
        row = {"batch": batch, "hits_left": left.get(batch.pk, 0), "held": holding.get(batch.pk),
               "size": size, "currency": get_provider(batch.provider).currency,
               "minutes": round(batch.assignment_duration / 60), "refusal": refusal,
               "title": listing.get("title", batch.name), "description": listing.get("description", ""),
               "noun": listing.get("noun", "item"), "action": getattr(refusal, "action", None)}
        if refusal:
            needs.append(row)
        elif row["hits_left"] or row["held"]:
            rows.append(row)
    return {"held": held, "open": rows, "needs": needs, "blocked": False}


def _listings(batches: Sequence[Batch]) -> dict[int, dict[str, str]]:
    """Each batch's own words (its design's title, description and item noun), a query per task type at most."""
    by_type: dict[str, list[Batch]] = defaultdict(list)
    for batch in batches:
        by_type[batch.task_type].append(batch)
    found: dict[int, dict[str, str]] = {}
    for name, members in by_type.items():
        if name in TASK_TYPES:
            found.update(TASK_TYPES.get(name).listings(members))
    return found


OPEN_HITS_SECONDS = 10


def _open_key(batch: Batch) -> str:
    return f"open-hits:{batch.pk}:{batch.created.timestamp()}"


def open_hits_changed(*batches: Batch) -> None:
    """Forget the batches' counts of HITs with a free place: a HIT filled up, or a place came free."""
    cache.delete_many([_open_key(batch) for batch in batches])


def _open_hits(batches: Sequence[Batch]) -> dict[int, int]:
    """How many published HITs of each batch have a free place. The work list says it to every worker on every
    visit: counted over all the batch's HITs once and kept until a HIT fills up or a place comes free
    (`open_hits_changed`), OPEN_HITS_SECONDS at most; a claim counts again, exactly, under a lock."""
    keys = {_open_key(batch): batch.pk for batch in batches}
    found = {keys[key]: count for key, count in cache.get_many(list(keys)).items()}
    missing = [pk for pk in keys.values() if pk not in found]
    if missing:
        counted = dict(with_room(Hit.objects.filter(batch__in=missing, state=Hit.State.PUBLISHED), timezone.now())
                       .values_list("batch").annotate(n=Count("pk")).order_by())
        fresh = {pk: counted.get(pk, 0) for pk in missing}
        cache.set_many({key: fresh[pk] for key, pk in keys.items() if pk in fresh}, timeout=OPEN_HITS_SECONDS)
        found.update(fresh)
    return found


def hit_sizes(batches: Sequence[Batch]) -> dict[int, tuple[int, int]]:
    """The smallest and largest HIT of each batch, in items. HITs never change size once made, so each
    batch is counted once per process (the work list asks on every visit); the key holds the batch's
    creation time, so a batch id used again after a database reset is counted afresh."""
    key = {batch.pk: (batch.pk, batch.created) for batch in batches}
    found = {pk: _sizes[k] for pk, k in key.items() if k in _sizes}
    missing = [pk for pk in key if pk not in found]
    if missing:
        counted: dict[int, list[int]] = defaultdict(list)
        for batch_id, n in (HitItem.objects.filter(hit__batch__in=missing).values_list("hit__batch", "hit")
                            .annotate(n=Count("pk")).values_list("hit__batch", "n").order_by()):
            counted[batch_id].append(n)
        for pk, sizes in counted.items():
            found[pk] = _sizes[key[pk]] = (min(sizes), max(sizes))
    return found


_sizes: dict[tuple[int, Any], tuple[int, int]] = {}


# Submitted and approved work: its answers are data (a rejected or withdrawn assignment's are not).
ANSWER_CHUNK = 2000


def answers_by_item(batch: Batch, *, scheme: str | None = None) -> Iterator[tuple[int, int, Any, int]]:
    """(item id, worker id, answer, hit id) of every counted answer of the batch, sorted by item and then as the work
    came in (submitted, id), streamed from the database, which unnests each assignment's answers (json_each,
    jsonb_each) and sorts them: a server-side cursor on PostgreSQL, a stepped statement on SQLite, so a batch of
    any size is read with the memory of a chunk. The answer is the item's {scheme: value}, or with `scheme` that
    scheme's value as text (None when the item's answer has none)."""
    postgres = connection.vendor == "postgresql"
    each, item = ("jsonb_each(a.answers) j", "(j.key)::bigint") if postgres else (
        "json_each(a.answers) j", "CAST(j.key AS INTEGER)")
    kind = "jsonb_typeof(j.value) = 'object'" if postgres else "j.type = 'object'"
    if scheme is None:
        value, params = "j.value", []
    elif postgres:
        value, params = "j.value ->> %s", [scheme]
    else:
        value, params = "CAST(json_extract(j.value, %s) AS TEXT)", ['$."' + scheme.replace('"', '\\"') + '"']
    sql = (f"SELECT {item} AS item, a.worker_id, {value}, a.hit_id FROM hits_assignment a "
           f"JOIN hits_hit h ON h.id = a.hit_id, {each} WHERE h.batch_id = %s AND a.state IN (%s, %s) "
           f"AND a.answers IS NOT NULL AND {kind} ORDER BY item, a.submitted, a.id")
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, [*params, batch.pk, *Assignment.COUNTED_STATES])
        while rows := cursor.fetchmany(ANSWER_CHUNK):
            for pk, worker, found, hit in rows:
                if scheme is None and isinstance(found, str | bytes):
                    found = json.loads(found)
                yield pk, worker, found, hit
