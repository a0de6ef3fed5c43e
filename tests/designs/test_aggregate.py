"""Per-scheme agreement and aggregation, on hand-computed cases: the SemEval 5/5 and 4/5 rules as a threshold
rule give the paper's outcomes, alpha takes the scheme's level, spans go by character majority, pairwise and
best-worst scores come out in the right order."""

import random
from pathlib import Path

import pytest

from aggregation.maths import PAPER_RULES, rule_outcome
from designs.aggregate import Answer, aggregate, bradley_terry, majority_spans, threshold
from designs.loader import load_file, load_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_subtask1_design_threshold_rule_gives_the_papers_outcomes_for_every_vote_split():
    rule = load_file(ROOT / "designs" / "semeval-subtask1.yaml").aggregation["counterfactual"]
    names = {"positive": "positive", "negative-100": "negative-100", "negative-80": "negative-80",
             "discarded": "discarded"}
    for yes in range(6):
        votes = ["1"] * yes + ["0"] * (5 - yes)
        assert threshold(votes, rule) == names[rule_outcome(yes, 5 - yes, PAPER_RULES)], yes


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
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: pairwise, name: p}\n")
    scheme = design.annotation_schemes[0]
    rng = random.Random(0)
    strength = {"strong": 0.9, "middle": 0.5, "weak": 0.1}
    comparisons = []
    for _ in range(300):
        a, b = rng.sample(sorted(strength), 2)
        p = strength[a] / (strength[a] + strength[b])
        comparisons.append(([a, b], "A" if rng.random() < p else "B"))
    scores = bradley_terry(comparisons, scheme)
    assert list(scores) == ["strong", "middle", "weak"]
    assert sum(scores.values()) == pytest.approx(3, abs=1e-3)  # strengths sum to the options (rounded to 4 places)


def test_dawid_skene_runs_where_the_design_asks_for_it():
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: radio, name: c, labels: [x, y]}\n"
                       "aggregation: {c: {method: dawid-skene}}\n")
    answers = [Answer(str(item), worker, "c", "x" if (item + n) % 5 else "y")
               for item in range(20) for n, worker in enumerate(("a", "b", "c"))]
    result = aggregate(design, answers)["c"]
    assert result.method == "dawid-skene" and set(result.items) == {str(item) for item in range(20)}
