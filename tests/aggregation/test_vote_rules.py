"""The vote aggregation runs the design file's threshold rule, not a rule of its own: the SemEval design's 5/5 and
4/5 rule is the paper's, another design's rule (three votes, its own labels) gives its own outcomes, and a rule
the stored runs cannot speak of is refused with what to change."""

from pathlib import Path

import pytest

from aggregation import maths
from aggregation.services import batch_aggregate, batch_vote_rule
from designs.items import Record
from designs.loader import load_file, load_text
from designs.models import DesignVersion
from designs.services import design_batch_create, design_version_save
from designs.task_type import label_rule
from hits.models import Worker
from hits.services import CrowdError, assignment_claim, assignment_submit, batch_publish
from tests.base import BaseTestCase

SHIPPED = load_file(Path(__file__).resolve().parents[2] / "designs" / "semeval-subtask1.yaml")

THREE = """
title: Is it sarcastic?
annotation_schemes:
  - annotation_type: radio
    name: sarcastic
    labels: ["yes", "no"]
    label_requirement: {required: true}
hits: {items_per_hit: 4, assignments_per_hit: 3}
aggregation:
  sarcastic:
    method: threshold
    min_answers: 3
    rules:
      - {outcome: positive, label: "yes", min_share: 1.0}
      - {outcome: negative-100, label: "no", min_share: 1.0}
      - {outcome: negative-80, label: "no", min_votes: 2, min_share: 0.66}
    otherwise: discarded
"""


def _rule(text):
    design = load_text(text, name="study.yaml")
    return label_rule(design, "")


def test_the_semeval_design_s_rule_is_the_paper_s():
    found = maths.vote_rule(label_rule(SHIPPED, ""))
    assert found.rules == maths.PAPER_RULES
    assert (found.yes, found.no) == ("1", "0")


def test_another_design_s_rule_gives_its_own_numbers():
    found = maths.vote_rule(_rule(THREE), seed=4)
    assert (found.rules.votes_required, found.rules.positive_agreement, found.rules.negative_agreement,
            found.rules.partial_negative_agreement, found.rules.seed) == (3, 1.0, 1.0, 0.66, 4)
    assert (found.yes, found.no) == ("yes", "no")
    outcomes = {o.item: o.outcome for o in maths.item_outcomes(
        [(1, "a", 1), (1, "b", 1), (1, "c", 1), (2, "a", 0), (2, "b", 0), (2, "c", 1), (3, "a", 1), (3, "b", 1),
         (3, "c", 0), (4, "a", 1)], found.rules)}
    assert outcomes == {1: "positive", 2: "negative-80", 3: "discarded", 4: "pending"}


@pytest.mark.parametrize(("change", "said"), [
    ("      - {outcome: negative-100, label: \"no\", min_share: 1.0}\n", "outcomes are positive, negative-80"),
    ("    otherwise: discarded\n", None),
    ("      - {outcome: positive, label: \"yes\", min_share: 1.0}\n", "outcomes are negative-100, negative-80"),
])
def test_a_rule_the_stored_runs_cannot_speak_of_is_refused_saying_what_to_change(change, said):
    text = THREE.replace(change, "")
    if said is None:  # without `otherwise` the rule's default (discarded) holds
        assert maths.votes_rule(_rule(text))
        return
    with pytest.raises(maths.RuleError, match=said):
        maths.vote_rule(_rule(text))


def test_renamed_outcomes_and_a_count_above_the_share_are_named():
    with pytest.raises(maths.RuleError, match="outcomes are yes-all, negative-100, negative-80"):
        maths.vote_rule(_rule(THREE.replace("outcome: positive", "outcome: yes-all")))
    with pytest.raises(maths.RuleError, match="negative-80 row asks 3 votes but a share of 66% of 3"):
        maths.vote_rule(_rule(THREE.replace("min_votes: 2, min_share: 0.66", "min_votes: 3, min_share: 0.66")))
    with pytest.raises(maths.RuleError, match="no threshold rule"):
        maths.vote_rule(None)


class DesignRuleTests(BaseTestCase):
    def test_a_batch_of_another_design_is_aggregated_by_its_rule(self):
        version = design_version_save(source=THREE, slug="sarcasm")
        assert isinstance(version, DesignVersion)
        records = [Record(id=f"r{n}", text=f"Oh, great, another meeting number {n}.") for n in range(4)]
        batch = batch_publish(batch=design_batch_create(version=version, records=records, name="sarcasm"))
        answers = {"r0": ["yes", "yes", "yes"], "r1": ["no", "no", "yes"], "r2": ["no", "no", "no"],
                   "r3": ["yes", "no", "yes"]}
        for number in range(3):
            worker = Worker.objects.create(provider="inhouse", external_id=f"w{number}")
            held = assignment_claim(batch=batch, worker=worker)
            raw = {f"a-{item.pk}-0": answers[item.content.record_id][number] for item in held.hit.ordered_items()}
            assignment_submit(assignment=held, worker=worker, raw_answers=raw)
        assert batch_vote_rule(batch).rules.votes_required == 3
        run = batch_aggregate(batch=batch, samples=20)
        found = {outcome.item.content.record_id: outcome.outcome for outcome in run.outcomes.select_related("item")}
        assert found == {"r0": "positive", "r1": "negative-80", "r2": "negative-100", "r3": "discarded"}
        assert run.rules["votes_required"] == 3 and "3 votes required" in run.rules_text

    def test_a_batch_whose_design_has_no_such_rule_is_refused_with_where_to_report_it(self):
        version = design_version_save(source=THREE.split("aggregation:")[0], slug="sarcasm-plain")
        batch = design_batch_create(version=version, records=[Record(id="r0", text="Sure.")], name="plain")
        with self.assertRaisesMessage(CrowdError, f"batch {batch.pk} is not aggregated by the vote rules: its label "
                                                  f"scheme has no threshold rule"):
            batch_aggregate(batch=batch)
