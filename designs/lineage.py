"""The story-lineage component: every chain of a multi-stage design, from its first item through each answer of
every stage to the organizer's decisions, read back from the items (`origin`, `round`, `source_item`) and the
answers. A chain is the first stage's item and everything made from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from designs.answers import holds
from designs.models import ChainDecision, batch_design
from designs.stages import record_item, waiting_chains, workflow_batches
from hits.models import Assignment, Batch, Item

STATES = ("open", "passed", "waiting", "dropped")


@dataclass
class Step:
    """One answer given on one of the chain's items."""

    stage: str
    round: int
    item: Item
    assignment: Assignment
    answer: dict[str, Any]
    passed: bool | None  # the stage's gate on this answer; None for a stage without one


@dataclass
class Chain:
    origin: Item
    steps: list[Step] = field(default_factory=list)
    decisions: list[ChainDecision] = field(default_factory=list)
    state: str = "open"  # open: in its rounds; passed: a check passed it; waiting: for the organizer; dropped

    @property
    def record_id(self) -> str:
        return record_item(self.origin).record_id

    @property
    def rounds(self) -> int:
        """The rounds a check failed it in (each sent it back, or made it wait)."""
        return len({step.round for step in self.steps if step.passed is False})


def chains(batch: Batch, *, origin: int | None = None, waiting: list[dict[str, Any]] | None = None) -> list[Chain]:
    """The workflow's chains (or the one starting at item `origin`), in the order their first answers came in.
    `waiting` is designs.stages.waiting_chains of the workflow, when the caller read it already."""
    stages = workflow_batches(batch)
    first = next(iter(stages.values()))
    design, _ = batch_design(first.pk)
    gates = {entry.name: entry.gate for entry in design.stages}
    stage_of = {stage_batch.pk: name for name, stage_batch in stages.items()}
    items = Item.objects.filter(batch__in=stages.values())
    if origin is not None:
        items = items.filter(Q(pk=origin, batch=first) | Q(payload__origin=origin))
    by_pk = {item.pk: item for item in items}
    found: dict[int, Chain] = {}
    for assignment in (Assignment.objects.filter(hit__batch__in=stages.values(), hit__hit_items__item__in=by_pk)
                       .exclude(submitted=None).distinct().select_related("worker__user", "hit")
                       .order_by("submitted", "pk")):
        for item_pk, answer in (assignment.answers or {}).items():
            item = by_pk.get(int(item_pk))
            if item is None or item.is_gold:
                continue
            payload = record_item(item)
            key = payload.origin or item.pk
            if key not in found:
                if key not in by_pk or by_pk[key].batch_id != first.pk:
                    continue  # not made from a first-stage item: no chain of this workflow
                found[key] = Chain(origin=by_pk[key])
            name = stage_of[item.batch_id]
            gate = gates.get(name)
            passed = None if gate is None else holds(gate, answer.get(gate.schema_))
            found[key].steps.append(Step(stage=name, round=payload.round, item=item, assignment=assignment,
                                         answer=answer, passed=passed))
    decisions = ChainDecision.objects.filter(workflow=first, origin__in=found).select_related("by").order_by("pk")
    for decision in decisions:
        found[decision.origin_id].decisions.append(decision)
    waits = {row["origin"] for row in (waiting_chains(first) if waiting is None else waiting)}
    for chain in found.values():
        if any(decision.decision == ChainDecision.Decision.DROP for decision in chain.decisions):
            chain.state = "dropped"
        elif chain.origin.pk in waits:
            chain.state = "waiting"
        elif any(step.passed for step in chain.steps):
            chain.state = "passed"
    return list(found.values())
