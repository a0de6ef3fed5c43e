"""A model's answers are one more worker's in truth inference: Dawid-Skene and MACE learn how it errs beside the
people's (its answers are votes like theirs), and a report can leave it out."""

import pytest

from designs.export import batch_report
from designs.items import Record
from designs.model_runs import SOURCE
from designs.models import OutsideAnswer
from hits.models import Worker
from hits.services import assignment_claim, assignment_submit, batch_publish
from projects.services import design_project_create

DESIGN = """
title: Sentiment by Dawid-Skene
hits: {items_per_hit: 6, assignments_per_hit: 3, order: file}
aggregation: {mood: {method: dawid-skene}}
annotation_schemes:
  - {annotation_type: radio, name: mood, labels: [good, bad]}
"""
TRUTH = ["good", "bad", "good", "good", "bad", "bad"]


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["dawid-skene", "mace"])
def test_truth_inference_weighs_the_model_as_one_more_worker(method):
    records = [Record(id=f"i{number}", text=f"item {number}") for number in range(len(TRUTH))]
    _, batch = design_project_create(source=DESIGN.replace("dawid-skene", method), file_name="mood.yaml",
                                     records=records)
    batch = batch_publish(batch=batch)
    # Two careful people and one who always says "good".
    for name, says in (("a", TRUTH), ("b", TRUTH), ("c", ["good"] * 6)):
        worker = Worker.objects.create(provider="inhouse", external_id=name)
        assignment = assignment_claim(batch=batch, worker=worker)
        items = assignment.hit.ordered_items()
        assignment_submit(assignment=assignment, worker=worker, raw_answers={
            f"a-{item.pk}-0": says[int(item.key.removeprefix("record:i"))] for item in items})
    crowd = batch_report(batch, keep_items=True, outside=False)
    # A model that is always wrong: Dawid-Skene takes its answers as votes and learns how it errs.
    for item in batch.items.all():
        wrong = "bad" if TRUTH[int(item.key.removeprefix("record:i"))] == "good" else "good"
        OutsideAnswer.objects.create(batch=batch, item=item, source=SOURCE, annotator="always-wrong @ test",
                                     answers={"mood": wrong})
    both = batch_report(batch, keep_items=True)
    assert both.results["mood"].method == method
    assert both.results["mood"].answers == crowd.results["mood"].answers + 6
    # The careful people still carry the labels: the model's confusion (Dawid-Skene) or its unreliability (MACE) is
    # learnt, not counted as a vote for truth.
    assert both.results["mood"].items == crowd.results["mood"].items == {
        f"i{number}": label for number, label in enumerate(TRUTH)}
    assert both.results["mood"].alpha < crowd.results["mood"].alpha
