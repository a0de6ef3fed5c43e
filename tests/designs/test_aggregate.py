"""Per-scheme agreement and aggregation, on hand-computed cases: the SemEval 5/5 and 4/5 rules as a threshold
rule give the paper's outcomes, alpha takes the scheme's level, spans go by character majority, pairwise and
best-worst scores come out in the right order."""

import random
from pathlib import Path

import pytest

from aggregation.maths import PAPER_RULES, rule_outcome
from designs.aggregate import Answer, aggregate, majority_spans, threshold
from designs.loader import load_file, load_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_subtask1_design_threshold_rule_gives_the_papers_outcomes_for_every_vote_split():
    rule = load_file(ROOT / "designs" / "semeval-subtask1.yaml").aggregation["counterfactual"]
    names = {"positive": "positive", "negative-100": "negative-100", "negative-80": "negative-80",
             "discarded": "discarded"}
    for yes in range(6):
        votes = ["1"] * yes + ["0"] * (5 - yes)
        assert threshold(votes, rule) == names[rule_outcome(yes, 5 - yes, PAPER_RULES)], yes


def test_an_item_short_of_the_rule_s_answers_is_pending_not_decided():
    design = load_file(ROOT / "designs" / "semeval-subtask1.yaml")
    answers = [Answer("full", f"w{n}", "counterfactual", "1") for n in range(5)]
    answers += [Answer("short", f"w{n}", "counterfactual", "1") for n in range(4)]
    result = aggregate(design, answers)["counterfactual"]
    assert result.outcomes == {"positive": 1, "pending": 1}
    assert (result.decided, result.seen) == (1, 2)  # the report's "1 of 2 items decided"


def test_alpha_uses_the_schemes_level():
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: likert, name: r, size: 5}\n"
                       "  - {annotation_type: radio, name: c, labels: ['1', '2', '3', '4', '5']}\n")
    # Two raters one point apart everywhere: close on an ordinal scale, always different as names.
    points = enumerate([1, 2, 3, 4, 5])
    answers = [answer for item, value in points for answer in (
        Answer(str(item), "a", "r", value), Answer(str(item), "b", "r", value + 1 if value < 5 else 4))]
    answers += [Answer(a.item, a.worker, "c", str(a.value)) for a in answers]
    results = aggregate(design, answers)
    assert results["r"].level == "ordinal" and results["c"].level == "nominal"
    assert results["r"].alpha > 0.5 > results["c"].alpha


def test_spans_are_the_characters_most_annotators_marked():
    text = "If it had rained, we would have stayed."
    one = [{"start": 0, "end": 16, "label": "antecedent"}, {"start": 18, "end": 38, "label": "consequent"}]
    two = [{"start": 3, "end": 16, "label": "antecedent"}, {"start": 18, "end": 38, "label": "consequent"}]
    three = [{"start": 0, "end": 16, "label": "antecedent"}]
    found = majority_spans(text, [one, two, three])
    assert [(span["label"], span["text"]) for span in found] == [("antecedent", "If it had rained"),
                                                                 ("consequent", "we would have stayed")]


def test_bradley_terry_orders_options_by_how_often_they_win():
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: pairwise, name: p}\n"
                       "aggregation: {p: {method: bradley-terry}}\n")
    rng = random.Random(0)
    strength = {"strong": 0.9, "middle": 0.5, "weak": 0.1}
    answers, compared = [], {}
    for number in range(300):
        a, b = rng.sample(sorted(strength), 2)
        p = strength[a] / (strength[a] + strength[b])
        compared[f"i{number}"] = [a, b]
        answers.append(Answer(f"i{number}", "w1", "p", "A" if rng.random() < p else "B"))
    scores = aggregate(design, answers, compared=compared)["p"].scores
    assert list(scores) == ["strong", "middle", "weak"]
    assert sum(scores.values()) == pytest.approx(3, abs=1e-3)  # strengths sum to the options (rounded to 4 places)


def test_dawid_skene_runs_where_the_design_asks_for_it():
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: radio, name: c, labels: [x, y]}\n"
                       "aggregation: {c: {method: dawid-skene}}\n")
    answers = [Answer(str(item), worker, "c", "x" if (item + n) % 5 else "y")
               for item in range(20) for n, worker in enumerate(("a", "b", "c"))]
    result = aggregate(design, answers)["c"]
    assert result.method == "dawid-skene" and set(result.items) == {str(item) for item in range(20)}


@pytest.mark.django_db
def test_a_semeval_batch_gives_the_same_outcomes_and_alpha_from_the_app_and_from_its_design_file(tmp_path):
    """Subtask 1 is a design file: the aggregation app's paper rules and the file's own threshold rule read the
    same stored votes and agree, outcome by outcome, and the batch exports like any design batch."""
    from aggregation.services import batch_aggregate as paper_aggregate
    from designs.export import batch_aggregate, export_batch
    from designs.semeval import labeling_batch_create
    from hits.models import Worker
    from hits.services import assignment_claim, assignment_submit, batch_publish
    from tests.hits.helpers import items, vote

    batch = batch_publish(batch=labeling_batch_create(name="both ways", items=items(12), items_per_hit=12))
    rng = random.Random(5)
    for n in range(5):
        worker = Worker.objects.create(provider="inhouse", external_id=f"w{n}")
        assignment = assignment_claim(batch=batch, worker=worker)
        fields = {}
        for item in assignment.hit.ordered_items():
            fields.update(vote(item, "1" if rng.random() < 0.5 else "0"))
        assignment_submit(assignment=assignment, worker=worker, raw_answers=fields)
    run = paper_aggregate(batch=batch, samples=0)
    results, _ = batch_aggregate(batch)
    ours = results["counterfactual"]
    assert ours.outcomes == {name: count for name, count in run.summary["outcomes"].items() if count}
    assert ours.alpha == pytest.approx(run.alpha)
    written = export_batch(batch=batch, out=tmp_path / "out")
    labels = (tmp_path / "out" / "labels.csv").read_text(encoding="utf-8").splitlines()
    assert len(labels) == 13 and labels[0].startswith("id,text,counterfactual") and written


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_from_coincidences_is_the_krippendorff_package_s(level):
    """Agreement keeps coincidences (or, at the interval level, sums) unit by unit; on data with missing values
    and units one coder answered it gives what the reference implementation gives on the whole matrix."""
    import krippendorff
    import numpy as np

    from designs.aggregate import Agreement

    rng = random.Random(level)
    for _ in range(20):
        coders, units = rng.randint(2, 6), rng.randint(3, 40)
        matrix = np.full((coders, units), np.nan)
        for unit in range(units):
            truth = rng.randint(1, 5)
            for coder in range(coders):
                if rng.random() < 0.7:
                    matrix[coder, unit] = truth if rng.random() < 0.6 else rng.randint(1, 5)
        cells = {unit: {coder: matrix[coder, unit] for coder in range(coders) if not np.isnan(matrix[coder, unit])}
                 for unit in range(units)}
        if level == "nominal":
            cells = {unit: {coder: f"v{int(value)}" for coder, value in coded.items()} for unit, coded in cells.items()}
        agreement = Agreement(level)
        for coded in cells.values():
            agreement.add(list(coded.values()))
        ours = agreement.alpha()
        pairable = [unit for unit in range(units) if (~np.isnan(matrix[:, unit])).sum() >= 2]
        values = {matrix[coder, unit] for unit in pairable for coder in range(coders)} - {np.nan}
        if len({value for value in values if not np.isnan(value)}) < 2:
            assert ours is None
            continue
        reference = krippendorff.alpha(reliability_data=matrix[:, pairable], level_of_measurement=level)
        assert ours == pytest.approx(reference, abs=1e-9)
