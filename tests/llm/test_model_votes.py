"""A model as one more voter in a live adaptive batch under SemEval's 100%/80% rule: an item stops where the model
and the first people settle it, the rest gets the full crowd, and the aggregation decides each as it stopped."""

from decimal import Decimal

import pytest

from aggregation.maths import DISCARDED, NEGATIVE_100, POSITIVE
from aggregation.services import batch_aggregate, settled_items
from designs.model_votes import model_votes_start, model_votes_stop
from designs.models import OutsideAnswer
from designs.semeval import labeling_batch_create
from hits.models import Hit, Worker
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish
from hits.task_types import get_task_type
from tests.hits.helpers import spec

MODEL = "tiny @ 127.0.0.1 · prompt abc"


def _batch(adaptive="outcomes"):
    items = [spec(f"s{n}", f"Sentence {n}.", group="finance") for n in range(8)]
    return batch_publish(batch=labeling_batch_create(name="with a model", items=items, items_per_hit=4,
                                                     assignments_per_hit=5, adaptive=adaptive,
                                                     reward=Decimal("0.40")))


def _model(batch, says, confidence=0.95):
    """The model's answers: `says(item)` is "1" or "0", with a confidence."""
    scheme = get_task_type(batch.task_type).label_key(batch)
    for item in batch.items.all():
        OutsideAnswer.objects.create(batch=batch, item=item, source=OutsideAnswer.MODEL, annotator=MODEL,
                                     answers={scheme: says(item)}, meta={"confidence": {scheme: confidence}})


def _work(batch, name, no=()):
    worker, _ = Worker.objects.get_or_create(provider="inhouse", external_id=name)
    assignment = assignment_claim(batch=batch, worker=worker)
    if assignment is None:
        return None
    assignment_submit(assignment=assignment, worker=worker, raw_answers={
        f"a-{item.pk}-0": "0" if item.pk in no else "1" for item in assignment.hit.ordered_items()})
    return assignment.hit


@pytest.mark.django_db
def test_the_model_and_four_people_settle_a_positive_and_the_hit_takes_no_fifth_vote():
    batch = _batch()
    first, second = batch.hits.order_by("index")
    doubted = min(first.items.values_list("pk", flat=True))
    # The model says yes to every item but one of the first HIT, where it is unsure (below the gate).
    _model(batch, lambda item: "1")
    scheme = get_task_type(batch.task_type).label_key(batch)
    OutsideAnswer.objects.filter(item_id=doubted).update(meta={"confidence": {scheme: 0.5}})
    settings = model_votes_start(batch=batch)
    assert settings == {"annotator": MODEL, "min_confidence": 0.9, "min_people": 1}
    for name in ("w1", "w2", "w3", "w4"):
        assert _work(batch, name) == first
    # Four people's yes and the model's settle three of the first HIT's items as positives: most of the HIT is
    # settled, so it is retired after four places; the doubted item waits for the full crowd.
    first.refresh_from_db()
    assert (first.places, first.state) == (4, Hit.State.COMPLETED)
    settled = settled_items(batch)
    assert set(first.items.values_list("pk", flat=True)) - settled == {doubted}
    # Without the model nothing is settled by four yes: a positive needs five.
    model_votes_stop(batch=batch)
    assert settled_items(batch) == set()
    model_votes_start(batch=batch)
    run = batch_aggregate(batch=batch, samples=0)
    outcomes = dict(run.outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in settled} == {POSITIVE}
    assert outcomes[doubted] == "pending"  # four people, and a model vote that does not count
    assert second.pk and run.summary["outcomes"][POSITIVE] == 3


@pytest.mark.django_db
def test_an_item_the_full_crowd_answers_is_the_peoples_alone_and_the_model_can_only_stop_it_early():
    # The model says no to everything; people say yes to everything.
    waits = _batch()
    _model(waits, lambda item: "0")
    model_votes_start(batch=waits, min_people=5)  # its vote never counts before five people: the full crowd
    first = waits.hits.order_by("index").first()
    for name in ("w1", "w2", "w3", "w4", "w5"):
        assert _work(waits, name) == first
    outcomes = dict(batch_aggregate(batch=waits, samples=0).outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in first.items.values_list("pk", flat=True)} == {POSITIVE}  # five people's yes
    # Counted after one person, its no and two people's yes settle an item as discarded (two yes and a no can be
    # neither positive nor negative): the HIT stops at two places, and the outcome is the one it stopped at.
    early = _batch()
    _model(early, lambda item: "0")
    model_votes_start(batch=early)
    first = early.hits.order_by("index").first()
    assert [_work(early, name) for name in ("w1", "w2")] == [first, first]
    first.refresh_from_db()
    assert (first.places, first.state) == (2, Hit.State.COMPLETED)
    outcomes = dict(batch_aggregate(batch=early, samples=0).outcomes.values_list("item_id", "outcome"))
    assert {outcomes[pk] for pk in first.items.values_list("pk", flat=True)} == {DISCARDED}
    assert NEGATIVE_100 not in outcomes.values()


@pytest.mark.django_db
def test_counting_a_model_is_refused_where_it_cannot_stop_anything():
    batch = _batch(adaptive="")
    with pytest.raises(CrowdError, match="not adaptive"):
        model_votes_start(batch=batch)
    batch = _batch()
    with pytest.raises(CrowdError, match="design ask-model"):
        model_votes_start(batch=batch)
    _model(batch, lambda item: "1")
    with pytest.raises(CrowdError, match="at least one person"):
        model_votes_start(batch=batch, min_people=0)
    with pytest.raises(CrowdError, match="no model 'other'"):
        model_votes_start(batch=batch, annotator="other")
