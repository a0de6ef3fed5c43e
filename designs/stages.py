"""Multi-stage designs run from the file. Each stage is a batch; the first stage's batch is the workflow's. A
later stage's items are an earlier stage's outputs (`from_stage`, those passing its `when`), carrying the
earlier answers as fields, and the workers who already worked on the chain never get them (`exclude_authors`).
A stage's `gate` checks what it was given: an output that fails it goes back to the stage it came from, to be
done again by someone else, at most `max_rounds` times; after that the chain waits for the organizer.

Runs inside the transaction that stores a submission (the task type's on_submitted), in-house and synced alike:
the new items are in the next stage's batch when the submission is; their HITs open at once in-house, and once
the submission is committed at a provider.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections import Counter
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.db.models.fields.json import KeyTextTransform

from core.errors import CrowdsetError
from core.items import RecordItem
from designs.answers import holds
from designs.models import ChainDecision, DesignBatch, DesignVersion, batch_design
from hits.models import Assignment, Batch, Hit, Item, Worker
from hits.providers import get_provider
from hits.services import BatchSpec, CrowdError, ItemSpec, batch_create, batch_extend, batch_publish


def record_item(item: Item) -> RecordItem:
    """A workflow item's payload: a design's items are records (designs.services makes them)."""
    payload = item.content
    if not isinstance(payload, RecordItem):
        raise CrowdError(f"item {item.pk} of batch {item.batch_id} is not a design's record; a workflow's items are")
    return payload

def later_stages_create(*, first: Batch, version: DesignVersion) -> list[Batch]:
    """The batches of every stage after the first: empty, growing as outputs arrive, packed and paid as the stage
    says (`stages[].hits`) or else as the first stage's batch, and joined to it as one workflow."""
    design = version.design
    made = []
    for stage in design.stages[1:]:
        own = stage.hits
        batch = batch_create(spec=BatchSpec(
            name=f"{first.name}: {stage.name}"[:200], task_type="design", grows=True, provider=first.provider,
            items_per_hit=own.items_per_hit or first.items_per_hit,
            assignments_per_hit=own.assignments_per_hit or first.assignments_per_hit,
            reward=first.reward if own.reward is None else own.reward,
            budget=first.budget, requirements=first.requirements, created_by=first.created_by,
            assignment_duration=first.assignment_duration, lifetime=first.lifetime), items=[])
        DesignBatch.objects.create(batch=batch, version=version, stage=stage.name, workflow=first)
        made.append(batch)
    DesignBatch.objects.filter(batch=first).update(workflow=first)
    return made


def workflow_batches(batch: Batch) -> dict[str, Batch]:
    """{stage name: batch} of the workflow `batch` belongs to (itself alone when it is not a stage)."""
    link = DesignBatch.objects.filter(batch=batch).first()
    if link is None or link.workflow_id is None:
        return {link.stage if link else "": batch}
    rows = DesignBatch.objects.select_related("batch").filter(workflow_id=link.workflow_id).order_by("batch_id")
    return {row.stage: row.batch for row in rows}


def stages_advance(assignment: Assignment, design: Any, stage_name: str) -> None:
    """Send a submission's outputs on to the stages that read this one, and what its gate fails back."""
    link = DesignBatch.objects.filter(batch_id=assignment.hit.batch_id).first()
    if link is None or link.workflow_id is None or not stage_name:
        return
    stage = next(entry for entry in design.stages if entry.name == stage_name)
    readers = [entry for entry in design.stages if entry.from_stage == stage.name]
    batches = {row.stage: row.batch_id for row in DesignBatch.objects.filter(workflow_id=link.workflow_id)}
    sending: dict[str, list[tuple[ItemSpec, list[Worker]]]] = {}
    gold = _gold(assignment)
    for item in assignment.hit.ordered_items():
        answer = (assignment.answers or {}).get(str(item.pk))
        if answer is None or item.pk in gold:
            continue
        payload = record_item(item)
        origin = payload.origin or item.pk
        for reader in readers:
            if reader.when is not None and not holds(reader.when, answer.get(reader.when.schema_)):
                continue
            # The earlier stage's answers become fields of the item, shown where the design's items.show names them.
            spec = ItemSpec(key=f"{reader.name}:{item.pk}:{assignment.pk}"[:100], group=item.group,
                            payload=RecordItem(record_id=payload.record_id, text=payload.text,
                                               fields={**payload.fields, **answer}, stage=reader.name,
                                               source_item=item.pk, round=payload.round, origin=origin))
            authors = _authors(origin, batches.values(), assignment) if reader.exclude_authors else []
            sending.setdefault(reader.name, []).append((spec, authors))
        if stage.gate is not None and stage.from_stage and not holds(stage.gate, answer.get(stage.gate.schema_)):
            _retire(item)
            back = _redo(stage, item, payload, origin, batches, assignment, answer)
            if back is not None:
                sending.setdefault(_redone_in(stage), []).append(back)
    for name, specs in sending.items():
        _extend(batches[name], specs)


def stages_withdraw(assignment: Assignment) -> None:
    """Withdrawn work's outputs are no data: the items it sent on to later stages close their free places (work
    already taken on them may still come in, and is the next stage's to judge)."""
    batches = [batch.pk for batch in workflow_batches(assignment.hit.batch).values()]
    for item in Item.objects.filter(batch_id__in=batches, key__endswith=f":{assignment.pk}",
                                    payload__source_item__in=[hit_item.item_id for hit_item
                                                              in assignment.hit.hit_items.all()]):
        _retire(item)


def _gold(assignment: Assignment) -> set[int]:
    # A check item mixed into the HIT is measured, not worked on: it is nobody's output.
    return set(assignment.hit.hit_items.filter(item__is_gold=True).values_list("item_id", flat=True))


def _retire(item: Item) -> None:
    """An output a check failed is superseded (redone, or waiting for the organizer): the free places of its HITs
    (those holding nothing else) close, so nobody is paid to check it again. Work already taken may still come in."""
    for hit in Hit.objects.filter(hit_items__item=item, state=Hit.State.PUBLISHED).select_related("batch"):
        if hit.hit_items.count() != 1:
            continue
        Hit.objects.filter(pk=hit.pk).update(state=Hit.State.EXPIRED)
        if hit.batch.provider != "inhouse" and hit.provider_hit_id:
            transaction.on_commit(functools.partial(_expire_remote, hit))


def _expire_remote(hit: Hit) -> None:
    try:
        get_provider(hit.batch.provider).expire_hit(hit)
    except CrowdsetError as error:
        DesignBatch.objects.filter(batch=hit.batch).update(note=f"HIT {hit.number} could not be closed: {error}"[:500])


def _redone_in(stage: Any) -> str:
    """Where a failed item is done again: this stage, on the check's own rewrite, or the stage it came from."""
    return stage.name if stage.rewrite is not None else stage.from_stage


def _redo(stage: Any, item: Item, payload: RecordItem, origin: int, batches: dict[str, int],
          assignment: Assignment | None, answer: dict[str, Any],
          limit: bool = True) -> tuple[ItemSpec, list[Worker]] | None:
    """The next round's item for an output this stage's gate failed: the check's own rewrite, as an item of this
    stage, or else the earlier stage's item to be done again. None once the chain has used its rounds (it waits
    for the organizer, whose "again" lifts the `limit`), without a rewrite, or when another check of this round
    already sent one on."""
    round_ = payload.round + 1
    if limit and round_ > stage.max_rounds:
        return None
    if stage.rewrite is not None:
        rewritten = answer.get(stage.rewrite.scheme)
        if not rewritten:
            return None
        group, start = item.group, RecordItem(record_id=payload.record_id, text=payload.text,
                                              fields={**payload.fields, stage.rewrite.replaces: rewritten})
    else:
        source = Item.objects.filter(pk=payload.source_item).first() if payload.source_item else None
        if source is None:
            return None
        group, start = source.group, record_item(source)
    target = _redone_in(stage)
    key = f"{target}:{origin}:r{round_}"
    if Item.objects.filter(batch_id=batches[target], key=key).exists():
        return None
    spec = ItemSpec(key=key, group=group, payload=RecordItem(
        record_id=start.record_id, text=start.text, fields=start.fields, stage=target, source_item=item.pk,
        round=round_, origin=origin))
    return spec, _authors(origin, batches.values(), assignment)


def _authors(origin: int, batches: Any, assignment: Assignment | None) -> list[Worker]:
    """Everyone who worked on the chain: the first item's and every later item's workers, this one included."""
    items = Item.objects.filter(Q(pk=origin) | Q(payload__origin=origin), batch_id__in=list(batches))
    # One filter(): the submitted assignment is the one on the chain's items, not any of the worker's.
    found = {worker.pk: worker for worker in Worker.objects.filter(
        assignments__hit__hit_items__item__in=items, assignments__submitted__isnull=False).distinct()}
    if assignment is not None:
        found[assignment.worker_id] = assignment.worker
    return list(found.values())


def _extend(batch_id: int, specs: list[tuple[ItemSpec, list[Worker]]]) -> None:
    batch = Batch.objects.get(pk=batch_id)
    try:
        with transaction.atomic():
            batch_extend(batch=batch, items=_name_copies(batch_id, [spec for spec, _ in specs]),
                         excluded={spec.key: authors for spec, authors in specs})
    except CrowdsetError as error:
        # A stage that takes no more items (cancelled, expired) never costs the worker their submission: the
        # outputs stay in its answers and the stage says why they did not go on.
        DesignBatch.objects.filter(batch_id=batch_id).update(
            note=f"{len(specs)} output(s) not added: {error}"[:500])
        return
    if batch.provider == "inhouse":
        stage_open(batch.pk)  # publishing in-house is marking rows: done at once, in this transaction
    else:
        transaction.on_commit(functools.partial(stage_open, batch.pk))  # a provider's calls wait for the commit


def _name_copies(batch_id: int, specs: list[ItemSpec]) -> list[ItemSpec]:
    """The items, each whose record already has an item in the batch given its own id, `<record id>#<n>`, the n-th
    of the record's items in the order they came, so the exports' rows, the reports and Label Studio's tasks tell
    them apart. The batch is locked first (as batch_extend locks it): two submissions never number alike."""
    Batch.objects.select_for_update().get(pk=batch_id)
    ids = {spec.payload.record_id for spec in specs if isinstance(spec.payload, RecordItem)}
    same = functools.reduce(operator.or_, (Q(payload__record_id=record) for record in ids), Q(pk__in=[]))
    made = Counter(Item.objects.filter(same, batch_id=batch_id)
                   .values_list(KeyTextTransform("record_id", "payload"), flat=True))
    named = []
    for spec in specs:
        if isinstance(spec.payload, RecordItem):
            made[spec.payload.record_id] += 1
            if made[spec.payload.record_id] > 1:
                own = f"{spec.payload.record_id}#{made[spec.payload.record_id]}"
                spec = dataclasses.replace(spec, payload=dataclasses.replace(spec.payload, own_id=own))
        named.append(spec)
    return named


def stage_open(batch_id: int) -> str:
    """Publish a stage's waiting HITs; returns (and keeps on the stage) why some still wait, or "". A refusal
    (the budget, the provider) leaves them waiting and never undoes the submission that made them."""
    batch = Batch.objects.get(pk=batch_id)
    note = ""
    if batch.hits.filter(provider_hit_id="").exists():
        try:
            with transaction.atomic():
                batch_publish(batch=batch)
        except CrowdsetError as error:
            note = str(error)[:500]
    DesignBatch.objects.filter(batch_id=batch_id).update(note=note)
    return note


def workflow_report(batch: Batch) -> dict[str, Any]:
    """Per stage: items, answers, items sent back (round > 0) and the note; and the chains that used their
    rounds and wait for the organizer."""
    stages = workflow_batches(batch)
    notes = dict(DesignBatch.objects.filter(batch__in=stages.values()).values_list("batch_id", "note"))
    found: dict[str, Any] = {"stages": {}}
    for name, stage_batch in stages.items():
        items = list(Item.objects.filter(batch=stage_batch))
        answers = Assignment.objects.filter(hit__batch=stage_batch).exclude(submitted=None).count()
        rounds = Counter(record_item(item).round for item in items)
        found["stages"][name] = {"batch": stage_batch.pk, "items": len(items), "answers": answers,
                                 "sent_back": sum(count for round_, count in rounds.items() if round_ > 0),
                                 "note": notes.get(stage_batch.pk, "")}
    found["waiting"] = len(waiting_chains(batch))
    return found


def waiting_chains(batch: Batch) -> list[dict[str, Any]]:
    """The chains that used their rounds: a check failed them at the last round the design allows, nothing was
    sent back after it and the organizer has not dropped them. One row a chain, with the failed item and its
    answer."""
    stages = workflow_batches(batch)
    if len(stages) < 2:
        return []
    design, _ = batch_design(batch.pk)
    first = next(iter(stages.values()))
    dropped = set(ChainDecision.objects.filter(workflow=first, decision=ChainDecision.Decision.DROP)
                  .values_list("origin_id", flat=True))
    rows: dict[int, dict[str, Any]] = {}
    for entry in design.stages:
        if entry.gate is None or not entry.from_stage or entry.name not in stages:
            continue
        redone_in = _redone_in(entry)
        sent = set(Item.objects.filter(batch=stages[redone_in]).values_list("key", flat=True))
        items = {item.pk: item for item in Item.objects.filter(batch=stages[entry.name])}
        for assignment in (Assignment.objects.filter(hit__batch=stages[entry.name]).exclude(answers=None)
                           .select_related("worker").order_by("pk")):
            for item_pk, answer in (assignment.answers or {}).items():
                item = items.get(int(item_pk))
                if item is None:
                    continue
                payload = record_item(item)
                origin = payload.origin or item.pk
                if (payload.round < entry.max_rounds or origin in dropped or origin in rows
                        or f"{redone_in}:{origin}:r{payload.round + 1}" in sent
                        or holds(entry.gate, answer.get(entry.gate.schema_))):
                    continue
                earlier = next(stage.schemes for stage in design.stages if stage.name == entry.from_stage)
                carried = {name: payload.fields[name] for name in earlier if name in payload.fields}
                rows[origin] = {"origin": origin, "record": payload.record_id, "stage": entry.name,
                                "round": payload.round, "item": item, "output": carried, "answer": answer,
                                "worker": assignment.worker}
    return list(rows.values())


def chain_decide(*, batch: Batch, origin: int, decision: str, user: Any = None) -> ChainDecision:
    """The organizer's word on a waiting chain: "again" sends it back once more (to someone who has not worked on
    it), "drop" stops it waiting. A chain that is not waiting is refused, so a replayed form decides nothing."""
    if decision not in ChainDecision.Decision.values:
        raise CrowdError(f"unknown decision {decision!r}; use again or drop")
    row = next((row for row in waiting_chains(batch) if row["origin"] == origin), None)
    if row is None:
        raise CrowdError(f"chain {origin} is not waiting for a decision (decided already, or still in its rounds)")
    design, _ = batch_design(batch.pk)
    stage = next(entry for entry in design.stages if entry.name == row["stage"])
    stages = workflow_batches(batch)
    batches = {name: stage_batch.pk for name, stage_batch in stages.items()}
    first = next(iter(stages.values()))
    with transaction.atomic():
        made = ChainDecision.objects.create(workflow=first, origin_id=origin, round=row["round"], decision=decision,
                                            by=user if getattr(user, "pk", None) else None)
        if decision == ChainDecision.Decision.AGAIN:
            back = _redo(stage, row["item"], record_item(row["item"]), origin, batches, None, row["answer"],
                         limit=False)
            if back is not None:
                _extend(batches[_redone_in(stage)], [back])
    return made
