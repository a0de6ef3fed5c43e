"""The workflow engine: stages made as batches, submissions turned into lineage steps, accepted output sent on
to the next stage as its items (with its authors excluded), the check gate's send-back with its loop limit,
and the organizer's decision on chains that reached it."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from chains.models import Chain, Stage, Step, Workflow
from core.errors import CrowdsetError
from core.items import StoryItem
from core.stories import EditBound, Story
from hits.models import Assignment, Batch, Hit, Item, Worker
from hits.providers import get_provider
from hits.services import CrowdError, ItemSpec, batch_create, batch_extend, batch_publish

WRITTEN = (Step.Kind.COUNTERFACTUAL, Step.Kind.REWRITE)


def workflow_create(*, name: str, stories: Sequence[Story], provider: str = "inhouse", loop_limit: int = 2,
                    bound: EditBound | None = None, rules: dict[str, int] | None = None,
                    write: dict[str, Any] | None = None, edit: dict[str, Any] | None = None,
                    created_by: Any = None) -> Workflow:
    """The TimeTravel workflow: a write stage over `stories` (one counterfactual each by default) feeding,
    through the check gate, a check-and-edit stage that grows as counterfactuals arrive. `write` and `edit`
    are each stage's batch options (items_per_hit, assignments_per_hit, reward, budget, requirements)."""
    if Workflow.objects.filter(name=name).exists():
        raise CrowdError(f"a workflow named {name!r} exists already; choose another name")
    if loop_limit < 1:
        raise CrowdError("loop_limit must be at least 1 (the failed checks a chain may have before review)")
    bound = bound or EditBound()
    rules = dict(rules or {})
    items = [ItemSpec(key=f"story:{story.story_id}", payload=StoryItem(
        story_id=story.story_id, premise=story.premise, initial=story.initial, ending=story.ending,
        rules=rules, bound=bound.to_json())) for story in stories]
    with transaction.atomic():
        workflow = Workflow.objects.create(name=name, loop_limit=loop_limit)
        write_batch = batch_create(name=f"{name}: write", task_type="story-write", items=items, provider=provider,
                                   created_by=created_by, **{"items_per_hit": 1, "assignments_per_hit": 1,
                                                             **(write or {})})
        edit_batch = batch_create(name=f"{name}: check and edit", task_type="story-edit", items=[], grows=True,
                                  provider=provider, created_by=created_by,
                                  **{"items_per_hit": 1, "assignments_per_hit": 1, **(edit or {})})
        edit_stage = Stage.objects.create(workflow=workflow, key="edit", order=1, batch=edit_batch)
        Stage.objects.create(workflow=workflow, key="write", order=0, batch=write_batch, feeds=edit_stage, gate=True)
    return workflow


def workflow_publish(workflow: Workflow) -> Workflow:
    """Open the first stage; later stages open as their first items arrive."""
    batch_publish(batch=workflow.stage("write").batch)
    return workflow


def steps_record(assignment: Assignment) -> None:
    """Turn a submission of a stage into lineage steps and send what it produced on. Runs inside the
    transaction that stores the submission (the task type's on_submitted), in-house and synced alike."""
    batch = assignment.hit.batch
    stage = Stage.objects.select_related("workflow", "feeds__batch").filter(batch=batch).first()
    if stage is None:
        return  # a batch of this task type made outside a workflow: its answers are all it has
    sending: dict[Stage, list[tuple[ItemSpec, list[Worker]]]] = {}
    for item in assignment.hit.ordered_items():
        answer = (assignment.answers or {}).get(str(item.pk))
        if answer is None:
            continue
        if batch.task_type == "story-write":
            chain = Chain.objects.create(workflow=stage.workflow, story_id=item.content.story_id,
                                         story=_story_json(item.content))
            step = Step.objects.create(chain=chain, stage=stage, kind=Step.Kind.COUNTERFACTUAL, round=0, item=item,
                                       assignment=assignment, worker=assignment.worker,
                                       value=answer["counterfactual"])
            if stage.feeds is not None:
                sending.setdefault(stage.feeds, []).append(_next_item(chain, step))
        else:
            sent = _checked(stage, assignment, item, answer)
            if sent:
                sending.setdefault(stage, []).append(sent)
    for target, specs in sending.items():
        stage_extend(target, specs)


def _checked(stage: Stage, assignment: Assignment, item: Item,
             answer: dict[str, Any]) -> tuple[ItemSpec, list[Worker]] | None:
    chain_pk, round_ = _chain_key(item.key)
    chain = Chain.objects.select_for_update().get(pk=chain_pk)
    shown = Step.objects.filter(chain=chain, kind__in=WRITTEN, round=round_).order_by("pk").first()
    common = {"chain": chain, "stage": stage, "item": item, "assignment": assignment, "worker": assignment.worker}
    if answer["passed"]:
        Step.objects.create(kind=Step.Kind.PASSED, round=round_, value=answer["checks"], answers=shown, **common)
        Step.objects.create(kind=Step.Kind.ENDING, round=round_, value=answer["ending"], answers=shown,
                            edit=answer.get("edit"), **common)
        if chain.state == Chain.State.CHECKING:
            chain.state = Chain.State.EDITED
            chain.save(update_fields=["state"])
        return None
    Step.objects.create(kind=Step.Kind.FAILED, round=round_, value=answer["checks"], answers=shown, **common)
    rewrite = Step.objects.create(kind=Step.Kind.REWRITE, round=round_ + 1, value=answer["rewrite"], answers=shown,
                                  **common)
    # Only the first failure of the chain's current round moves it on: a second checker of the same
    # counterfactual, or one who answers after the chain was edited or sent to review, is kept in the lineage.
    if chain.state != Chain.State.CHECKING or round_ != chain.rounds:
        return None
    chain.rounds += 1
    _retire(item)
    if chain.rounds >= stage.workflow.loop_limit:
        chain.state = Chain.State.REVIEW
        chain.save(update_fields=["rounds", "state"])
        return None
    chain.save(update_fields=["rounds"])
    return _next_item(chain, rewrite)


def _retire(item: Item) -> None:
    """A counterfactual that was sent back is superseded: the free places of its HIT (when the HIT holds
    nothing else) close, so nobody is paid to check it again. Work already taken may still come in."""
    hits = list(Hit.objects.filter(hit_items__item=item, state=Hit.State.PUBLISHED).select_related("batch"))
    for hit in hits:
        if hit.hit_items.count() != 1:
            continue
        Hit.objects.filter(pk=hit.pk).update(state=Hit.State.EXPIRED)
        if hit.batch.provider != "inhouse" and hit.provider_hit_id:
            transaction.on_commit(functools.partial(_expire_remote, hit))


def _expire_remote(hit: Hit) -> None:
    try:
        get_provider(hit.batch.provider).expire_hit(hit)
    except CrowdsetError as error:
        Stage.objects.filter(batch=hit.batch).update(note=f"HIT {hit.number} could not be closed: {error}")


def _next_item(chain: Chain, written: Step) -> tuple[ItemSpec, list[Worker]]:
    """The check-and-edit item for a counterfactual, and who may not get it: everyone who already worked on
    the chain (its writer, every checker and rewriter)."""
    source = Item.objects.get(pk=Step.objects.filter(chain=chain).order_by("pk").values_list("item", flat=True)[0])
    story = source.content
    if not isinstance(story, StoryItem):
        raise CrowdError(f"chain {chain.pk} does not start from a story item")
    payload = dataclasses.replace(story, counterfactual=written.value, round=written.round)
    authors = list(Worker.objects.filter(pk__in=Step.objects.filter(chain=chain).exclude(worker=None)
                                         .values("worker")))
    return ItemSpec(key=f"chain:{chain.pk}:r{written.round}", payload=payload), authors


def stage_extend(stage: Stage, specs: list[tuple[ItemSpec, list[Worker]]]) -> None:
    """Add items to a stage's batch and, once the submission that made them is stored, publish the new HITs
    (within the batch's budget). What cannot be published yet waits, with the reason on the stage."""
    batch_extend(batch=stage.batch, items=[spec for spec, _ in specs],
                 excluded={spec.key: authors for spec, authors in specs})
    if stage.batch.provider == "inhouse":
        stage_open(stage.pk)  # publishing in-house is marking rows: done at once, in this transaction
    else:
        transaction.on_commit(lambda: stage_open(stage.pk))  # a provider's calls wait for the commit


def stage_open(stage_pk: int) -> str:
    """Publish a stage's waiting HITs; returns (and keeps on the stage) why some still wait, or "". A refusal
    (the budget, the provider) leaves the HITs waiting and never undoes the submission that made them."""
    stage = Stage.objects.select_related("batch").get(pk=stage_pk)
    note = ""
    if stage.batch.hits.filter(provider_hit_id="").exists():
        try:
            with transaction.atomic():
                batch_publish(batch=Batch.objects.get(pk=stage.batch_id))
        except CrowdsetError as error:
            note = f"{error}"
    Stage.objects.filter(pk=stage.pk).update(note=note)
    return note


def chain_decide(*, chain: Chain, decision: str, note: str = "", user: Any = None) -> Chain:
    """The organizer's decision on a chain in review: "accept" sends its latest counterfactual on to be edited
    (as another round), "drop" leaves it out of the dataset."""
    with transaction.atomic():
        chain = Chain.objects.select_for_update().get(pk=chain.pk)
        if chain.state != Chain.State.REVIEW:
            raise CrowdError(f"chain {chain.pk} is {chain.state}, not waiting for review")
        if decision not in ("accept", "drop"):
            raise CrowdError(f"unknown decision {decision!r}; use accept or drop")
        latest = Step.objects.filter(chain=chain, kind__in=WRITTEN).order_by("-round", "pk").first()
        Step.objects.create(chain=chain, kind=Step.Kind.ORGANIZER, round=chain.rounds,
                            value={"decision": decision, "note": note,
                                   "by": getattr(user, "username", "") if user else ""}, answers=latest)
        if decision == "drop":
            chain.state = Chain.State.DROPPED
            chain.save(update_fields=["state"])
            return chain
        if latest is None:
            raise CrowdError(f"chain {chain.pk} has no counterfactual to send on; drop it instead")
        chain.state = Chain.State.CHECKING
        chain.save(update_fields=["state"])
        edit = chain.workflow.stage("edit")
        stage_extend(edit, [_next_item(chain, latest)])
    return chain


def _chain_key(key: str) -> tuple[int, int]:
    try:
        _, chain, round_ = key.split(":")
        return int(chain), int(round_.lstrip("r"))
    except ValueError:
        raise CrowdError(f"item {key!r} is not a chain item (chain:<id>:r<round>)") from None


def _story_json(payload: StoryItem) -> dict[str, Any]:
    return {"story_id": payload.story_id, "premise": payload.premise, "initial": payload.initial,
            "ending": list(payload.ending)}


def chain_story(chain: Chain) -> Story:
    story = chain.story
    return Story(story_id=story["story_id"], premise=story["premise"], initial=story["initial"],
                 ending=tuple(story["ending"]))
