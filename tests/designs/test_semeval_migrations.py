"""Batches of the retired Subtask-1 and Subtask-2 task types become batches of designs/semeval-subtask1.yaml and
semeval-subtask2.yaml (migrations designs/0008 and 0009): the sentence items as they were, every answer in the
design's shape, a claimed HIT's draft under the design page's field names, and what reads them reads them as
before."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from aggregation.services import batch_aggregate, batch_vote_rule
from hits.models import Assignment, Batch, Item


def _rewound(migration):
    """The database migrated back to designs' `migration`: (the leaf migrations to go forward to, the models as
    they were then)."""
    before = [("designs", migration)]
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    executor.loader.build_graph()
    return leaves, executor.loader.project_state([node for node in leaves if node[0] != "designs"] + before).apps


@pytest.mark.django_db(transaction=True)
def test_a_subtask1_batch_becomes_a_batch_of_the_semeval_design_with_its_votes():
    leaves, old = _rewound("0007_story_workflows_as_designs")
    OldBatch, OldItem, Hit, HitItem = (old.get_model("hits", name) for name in ("Batch", "Item", "Hit", "HitItem"))
    OldWorker, OldAssignment = old.get_model("hits", "Worker"), old.get_model("hits", "Assignment")
    batch = OldBatch.objects.create(name="old labels", task_type="subtask1", items_per_hit=2, assignments_per_hit=5)
    items = [OldItem.objects.create(batch=batch, key=f"sentence:{n}", gold_answer=1 if n == 0 else None, payload={
        "kind": "sentence", "text": f"If it had rained, {n} would have stayed in.", "sentence_id": str(n)})
        for n in range(2)]
    hit = Hit.objects.create(batch=batch, index=0)
    for position, item in enumerate(items):
        HitItem.objects.create(hit=hit, item=item, position=position)
    for n in range(5):
        OldAssignment.objects.create(hit=hit, worker=OldWorker.objects.create(provider="inhouse", external_id=f"w{n}"),
                                     state="submitted", submitted=timezone.now(),
                                     answers={str(items[0].pk): 1, str(items[1].pk): 0},
                                     raw_answers={f"item-{items[0].pk}": "1", f"item-{items[1].pk}": "0"})
    held = OldAssignment.objects.create(hit=hit, worker=OldWorker.objects.create(provider="inhouse", external_id="w5"),
                                        state="claimed", draft={f"item-{items[0].pk}": "1", "_changes": "[]"})

    MigrationExecutor(connection).migrate(leaves)

    now = Batch.objects.get(pk=batch.pk)
    assert (now.task_type, now.design_link.version.slug) == ("design", "semeval-subtask1")
    assert (batch_vote_rule(now).yes, batch_vote_rule(now).no) == ("1", "0")
    stored = Assignment.objects.filter(hit__batch=now, state="submitted").first()
    assert stored.answers == {str(items[0].pk): {"counterfactual": "1"}, str(items[1].pk): {"counterfactual": "0"}}
    assert stored.raw_answers == {f"item-{items[0].pk}": "1", f"item-{items[1].pk}": "0"}  # as it was sent
    assert Assignment.objects.get(pk=held.pk).draft == {f"a-{items[0].pk}-0": "1", "_changes": "[]"}
    assert Item.objects.get(pk=items[0].pk).content.sentence_id == "0"  # the sentence payload kept
    run = batch_aggregate(batch=now, samples=0)
    assert run.summary["outcomes"]["positive"] == 1 and run.summary["outcomes"]["negative-100"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_subtask2_batch_becomes_a_batch_of_the_span_design_with_its_answers():
    """designs/0009: the span batch's answers in the design's shape (end exclusive), a "no" with its reason, the
    review's rows untouched, a draft's double check kept under the design page's name."""
    leaves, old = _rewound("0008_subtask1_batches_as_designs")
    OldBatch, OldItem, Hit, HitItem = (old.get_model("hits", name) for name in ("Batch", "Item", "Hit", "HitItem"))
    OldWorker, OldAssignment = old.get_model("hits", "Worker"), old.get_model("hits", "Assignment")
    batch = OldBatch.objects.create(name="old spans", task_type="subtask2", items_per_hit=2, assignments_per_hit=1)
    text = "If the bill had passed, prices would have fallen."
    items = [OldItem.objects.create(batch=batch, key=f"sentence:{n}", payload={
        "kind": "sentence", "text": text if n == 0 else "Rates rose.", "sentence_id": str(n)}) for n in range(2)]
    hit = Hit.objects.create(batch=batch, index=0)
    for position, item in enumerate(items):
        HitItem.objects.create(hit=hit, item=item, position=position)
    done = OldAssignment.objects.create(
        hit=hit, worker=OldWorker.objects.create(provider="inhouse", external_id="w0"), state="submitted",
        submitted=timezone.now(), answers={
            str(items[0].pk): {"counterfactual": True, "antecedent": [0, 21], "consequent": [24, 47]},
            str(items[1].pk): {"counterfactual": False, "reason": "a plain fact"}})
    held = OldAssignment.objects.create(hit=hit, worker=OldWorker.objects.create(provider="inhouse", external_id="w1"),
                                        state="claimed", draft={f"cf-{items[0].pk}": "1", f"ant-{items[0].pk}": "0:4",
                                                                f"why-{items[1].pk}": "no", "_changes": "[]"})

    MigrationExecutor(connection).migrate(leaves)

    now = Batch.objects.get(pk=batch.pk)
    assert (now.task_type, now.design_link.version.slug) == ("design", "semeval-subtask2")
    answers = Assignment.objects.get(pk=done.pk).answers
    assert answers[str(items[0].pk)] == {"counterfactual": "yes", "spans": [
        {"start": 0, "end": 22, "label": "antecedent", "text": "If the bill had passed"},
        {"start": 24, "end": 48, "label": "consequent", "text": "prices would have fallen"}]}
    assert answers[str(items[1].pk)] == {"counterfactual": "no", "reason": "a plain fact"}
    assert Assignment.objects.get(pk=held.pk).draft == {f"a-{items[0].pk}-0": "yes", f"a-{items[1].pk}-2": "no",
                                                         "_changes": "[]"}
