"""Making batches: items packed into HITs (domains interleaved, gold mixed in, seeded), a growing batch's
new items, and who may take the work."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from django.db import transaction
from django.db.models import Max

from core.items import Payload
from hits import extensions
from hits.models import Batch, Hit, HitItem, Item, Worker
from hits.providers import PROVIDERS, get_provider
from hits.providers.base import money
from hits.services.adaptive import adaptive_refusal
from hits.services.errors import CrowdError
from hits.services.payments import batch_cost
from hits.task_types import get_task_type


class Grouped(Protocol):
    @property
    def group(self) -> str: ...


T = TypeVar("T", bound=Grouped)


@dataclass(frozen=True)
class ItemSpec:
    """An item to put in a batch: who it stands for (`key`, unique per batch), what the worker is
    shown (a typed payload), its interleaving group, and its known answer if there is one."""

    key: str
    payload: Payload
    group: str = ""
    gold_answer: Any = None


@dataclass(frozen=True)
class BatchSpec:
    """How a batch is made: what its task is, where it runs, how its items are packed and paid, and who may work.

    A batch that `grows` (a later stage of a workflow) may start empty; `batch_extend` adds its items as the
    earlier stage produces them. An `adaptive` batch ("outcomes" or "positives": what must be decided) stops
    buying votes no remaining vote can change and re-packs the rest (hits.services.adaptive)."""

    name: str
    task_type: str
    provider: str = "inhouse"
    items_per_hit: int = 25
    assignments_per_hit: int = 5
    gold_rate: float = 0.0
    seed: int = 0
    reward: Decimal | str = Decimal("0.50")
    budget: Decimal | None = None
    requirements: dict[str, Any] | None = None
    created_by: Any = None
    assignment_duration: int = 3600
    lifetime: int = 7 * 24 * 3600
    grows: bool = False
    adaptive: str = ""
    shuffle: bool = True  # False: the items in the order given, each HIT's too (gold still at seeded places)


def pack(items: Sequence[T], gold_items: Sequence[T] = (), *, items_per_hit: int, gold_rate: float = 0.0,
         seed: int = 0, shuffle: bool = True) -> tuple[list[T], list[list[T]]]:
    """(the items in the order they are stored, the HITs with their items in page order): domains interleaved, gold
    mixed in, all decided by `seed`. Each HIT gets round(items_per_hit × gold_rate) gold items (no more than the
    pool holds) at seeded positions, and the other items are spread evenly so HIT sizes differ by at most one.
    Plain data in, plain data out: the batch and the design page's preview pack alike."""
    rng = random.Random(seed)
    gold_per_hit = min(len(gold_items), round(items_per_hit * gold_rate)) if gold_rate else 0
    ordered = interleave(items, rng) if shuffle else list(items)
    if not ordered:
        return ordered, []
    hits_needed = hit_count(items=len(ordered), items_per_hit=items_per_hit, gold_items=len(gold_items),
                            gold_rate=gold_rate)
    gold_order = _gold_cycle(list(gold_items), rng)
    hits = []
    for share in _even_split(ordered, hits_needed):
        chosen: list[T] = []
        while len(chosen) < gold_per_hit:
            candidate = next(gold_order)
            if candidate not in chosen:  # a round may start with the item the last one ended on
                chosen.append(candidate)
        members = share + chosen
        if shuffle:
            rng.shuffle(members)
        else:  # the items in their order, each check at a seeded place among them
            for check in chosen:
                members.remove(check)
                members.insert(rng.randint(0, len(members)), check)
        hits.append(members)
    return ordered, hits


def batch_create(*, spec: BatchSpec, items: Sequence[ItemSpec], gold_items: Sequence[ItemSpec] = ()) -> Batch:
    """A batch of `spec`: `items` (which may carry a known answer, measured against, not a check) and `gold_items`
    (the known-answer checks mixed into every HIT), packed into HITs (`pack`)."""
    try:
        get_task_type(spec.task_type)
    except LookupError as error:
        raise CrowdError(str(error)) from None
    if spec.provider not in PROVIDERS:
        raise CrowdError(f"unknown provider {spec.provider!r}; use one of {', '.join(PROVIDERS)}")
    refusal = (adaptive_refusal(provider=spec.provider, task_type=spec.task_type, mode=spec.adaptive)
               if spec.adaptive else None)
    if refusal:
        raise CrowdError(refusal)
    if not 1 <= spec.items_per_hit <= 100 or spec.assignments_per_hit < 1:
        raise CrowdError("items_per_hit must be 1 to 100 (the paper used 20-30) and assignments_per_hit at least 1")
    items, gold_items = list(items), list(gold_items)
    if not items and not spec.grows:
        raise CrowdError("a batch needs at least one item")
    requirements = check_requirements(spec.requirements or {})
    keys = [item.key for item in items + gold_items]
    if len(set(keys)) != len(keys):
        raise CrowdError("item keys must be unique within a batch")
    ordered, packed = pack(items, gold_items, items_per_hit=spec.items_per_hit, gold_rate=spec.gold_rate,
                           shuffle=spec.shuffle,
                           seed=spec.seed)
    with transaction.atomic():
        batch = Batch.objects.create(
            name=spec.name, task_type=spec.task_type, provider=spec.provider, items_per_hit=spec.items_per_hit,
            assignments_per_hit=spec.assignments_per_hit, gold_rate=spec.gold_rate, seed=spec.seed,
            reward=money(spec.reward), budget=spec.budget, requirements=requirements or {},
            created_by=spec.created_by, assignment_duration=spec.assignment_duration, lifetime=spec.lifetime,
            adaptive=spec.adaptive)
        stored = Item.objects.bulk_create(
            [Item(batch=batch, key=i.key, group=i.group, payload=i.payload.to_json(), gold_answer=i.gold_answer)
             for i in ordered]
            + [Item(batch=batch, key=g.key, group=g.group, payload=g.payload.to_json(), is_gold=True,
                    gold_answer=g.gold_answer) for g in gold_items])
        by_key = {item.key: item for item in stored}
        hits = Hit.objects.bulk_create(Hit(batch=batch, index=index) for index in range(len(packed)))
        HitItem.objects.bulk_create(HitItem(hit=hit, item=by_key[member.key], position=position)
                                    for hit, members in zip(hits, packed, strict=True)
                                    for position, member in enumerate(members))
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


def interleave(items: Sequence[T], rng: random.Random) -> list[T]:
    """Round-robin over groups (sorted), each group shuffled by `rng`."""
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    queues: list[list[T]] = []
    for name in sorted(groups):
        members = groups[name]
        rng.shuffle(members)
        queues.append(members)
    ordered: list[T] = []
    for position in range(max((len(queue) for queue in queues), default=0)):
        ordered.extend(queue[position] for queue in queues if position < len(queue))
    return ordered


def _gold_cycle(gold: list[T], rng: random.Random) -> Iterator[T]:
    """Gold items in rounds: each is used once before any is used again.

    A worker never sees an item twice in a batch, so a gold item in two HITs
    keeps a worker who took one from taking the other; a pool as large as the
    HITs need avoids that entirely.
    """
    while gold:
        round_ = list(gold)
        rng.shuffle(round_)
        yield from round_


def _even_split(items: list[T], parts: int) -> list[list[T]]:
    size, extra = divmod(len(items), parts)
    shares, start = [], 0
    for part in range(parts):
        end = start + size + (1 if part < extra else 0)
        shares.append(items[start:end])
        start = end
    return shares

def hit_count(*, items: int, items_per_hit: int, gold_items: int = 0, gold_rate: float = 0.0) -> int:
    """How many HITs batch_create makes of `items` (gold checks take their places in every HIT)."""
    gold_per_hit = min(gold_items, round(items_per_hit * gold_rate)) if gold_rate else 0
    return math.ceil(items / max(1, items_per_hit - gold_per_hit)) if items else 0

def worker_filters(*, provider: str, requirements: dict[str, Any]) -> list[str]:
    """Who may take a batch's work at `provider`, in words (the batch page and the cost estimate show it)."""
    return [*get_provider(provider).describe_filters(requirements or {}),
            *(said for _, words in extensions.FILTER_WORDS.items() for said in words(requirements or {}))]


def describe_batch(batch: Batch, filters: list[str] | None = None) -> str:
    """Cost and who may work (the provider's filters unless `filters` says it better), in two lines for a
    command's output."""
    cost = batch_cost(batch=batch)
    return (f"cost: {cost.assignments} assignments, {cost.rewards} in rewards + {cost.fees} in {batch.provider} fees "
            f"= {cost.total}\nwho may work: "
            + "; ".join(filters or worker_filters(provider=batch.provider, requirements=batch.requirements)))


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
