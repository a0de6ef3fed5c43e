"""Potato's range_slider, constant_sum (and soft_label, one that starts spread), and cloze: read and checked on the
server as the page keeps them, compared per end, label or blank, combined, scored and written as Potato does."""

import subprocess
import sys
from pathlib import Path

import pytest

from designs.aggregate import Answer, aggregate
from designs.loader import DesignError, load_text
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.schemes.cloze import passage
from hits.services import batch_publish

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCE = """title: Budgets
annotation_schemes:
  - {annotation_type: range_slider, name: ages, min_value: 0, max_value: 100, step: 5}
  - {annotation_type: constant_sum, name: blame, labels: [driver, weather, city], total_points: 10}
  - {annotation_type: cloze, name: fill, text: "The [[cat|kitten]] sat on the [[mat]] by the [[]].",
     scoring: normalized, label_requirement: {required: true}}
  - {annotation_type: cloze, name: own, source_field: passage, answer_field: keys}
"""
RECORD = Record(id="c1", text="The bus was late.",
                fields={"passage": "A [[]] is a [[]].", "keys": ["cat", "pet|animal"]})


def _design():
    return load_text(SOURCE, name="budgets.yaml")


def _read(name, fields, record=RECORD):
    scheme = next(scheme for scheme in _design().annotation_schemes if scheme.name == name)
    return SCHEME_TYPES.of(scheme).read(scheme, Fields(fields, "a"), record)


def test_a_range_is_both_ends_on_the_scale_low_first():
    assert _read("ages", {}) is None
    assert _read("ages", {"a-low": "20", "a-high": "60"}) == {"low": 20, "high": 60}
    for fields, said in (({"a-low": "20"}, "set both ends"), ({"a-low": "60", "a-high": "20"}, "above the high end"),
                         ({"a-low": "22", "a-high": "60"}, "not on a step of 5"),
                         ({"a-low": "20", "a-high": "120"}, "outside 0 to 100")):
        with pytest.raises(AnswerProblem, match=said):
            _read("ages", fields)


def test_points_are_whole_within_their_floor_and_all_shared_out():
    assert _read("blame", {}) is None
    assert _read("blame", {"a-1": "10"}) == {"driver": 10}  # a label left empty has none, as Potato saves it
    assert _read("blame", {"a-1": "6", "a-2": "3", "a-3": "1"}) == {"driver": 6, "weather": 3, "city": 1}
    for fields, said in (({"a-1": "6"}, "share out all 10 points: 4 are left"),
                         ({"a-1": "6", "a-2": "6"}, "2 too many are given"),
                         ({"a-1": "2.5", "a-2": "7.5"}, "driver: give a whole number of points from 0 to 10"),
                         ({"a-1": "-1", "a-2": "11"}, "driver: give a whole number")):
        with pytest.raises(AnswerProblem, match=said):
            _read("blame", fields)


def test_a_constant_sum_that_cannot_be_shared_out_is_refused_at_its_key():
    for keys, said in (("total_points: 10, min_per_item: 4", "min_per_item 4 for 3 labels is more than total_points"),
                       ("spread: true", "spread needs input_type: slider")):
        with pytest.raises(DesignError, match=f"t.yaml:3: annotation_schemes.0: {said}"):
            load_text(f"title: t\nannotation_schemes:\n  - {{annotation_type: constant_sum, name: b, "
                      f"labels: [x, y, z], {keys}}}\n", name="t.yaml")


def test_a_cloze_reads_its_blanks_and_never_shows_its_keys():
    pieces, keys = passage(_design().annotation_schemes[2], RECORD)
    assert pieces == ["The ", 0, " sat on the ", 1, " by the ", 2, "."] and keys == [["cat", "kitten"], ["mat"], []]
    assert _read("fill", {"a-1": "Kitten", "a-2": "rug", "a-3": "door"}) == {
        "blank_1": "Kitten", "blank_2": "rug", "blank_3": "door"}
    with pytest.raises(AnswerProblem, match="fill in every blank \\(blank 2 is empty\\)"):
        _read("fill", {"a-1": "cat"})  # required: every blank
    assert _read("own", {"a-2": "pet"}) == {"blank_2": "pet"}  # not required: the blanks filled
    scheme = _design().annotation_schemes[3]
    kind = SCHEME_TYPES.of(scheme)
    assert kind.item_problem(scheme, Record("c2", "x", {"passage": "no blanks"})) == (
        "item 'c2' has no passage with [[ ]] blanks under 'passage'")
    context = kind.widget_context(scheme, RECORD, "a", {})
    assert context == {"pieces": [{"text": "A "}, {"blank": 1}, {"text": " is a "}, {"blank": 2}, {"text": "."}],
                       "blanks": 2}


def test_a_cloze_is_scored_as_potato_scores_it_answered_or_not():
    fill, own = _design().annotation_schemes[2:]
    kind = SCHEME_TYPES.of(fill)
    # normalized: no case, accents or punctuation; the keyless third blank is not scored.
    assert kind.potato_scores(fill, {"blank_1": "Kítten!", "blank_2": "rug"}, RECORD) == {
        "blank_1_correct": 1, "blank_2_correct": 0, "score": 1, "scored_blanks": 2}
    assert kind.potato_scores(fill, None, RECORD) == {
        "blank_1_correct": 0, "blank_2_correct": 0, "score": 0, "scored_blanks": 2}
    assert kind.potato_scores(own, {"blank_1": "CAT", "blank_2": "animal"}, RECORD)["score"] == 2
    keyed = Record("c3", "", {"passage": "A [[]].", "keys": "dog"})
    assert kind.potato_scores(own, {"blank_1": "cat"}, keyed)["score"] == 0


def test_ranges_points_and_blanks_are_compared_and_combined_part_by_part():
    design = load_text(SOURCE.replace("title: Budgets", "title: Budgets\naggregation: {blame: {method: mean}}"),
                       name="budgets.yaml")
    answers = [Answer("c1", "w1", "ages", {"low": 20, "high": 60}), Answer("c1", "w2", "ages", {"low": 30, "high": 70}),
               Answer("c1", "w3", "ages", {"low": 25, "high": 90}),
               Answer("c2", "w1", "ages", {"low": 0, "high": 10}), Answer("c2", "w2", "ages", {"low": 5, "high": 10}),
               Answer("c1", "w1", "blame", {"driver": 10}), Answer("c1", "w2", "blame", {"driver": 6, "city": 4}),
               Answer("c1", "w1", "fill", {"blank_1": "cat", "blank_2": "mat", "blank_3": "door"}),
               Answer("c1", "w2", "fill", {"blank_1": "Cat", "blank_2": "rug", "blank_3": "door"}),
               Answer("c1", "w3", "fill", {"blank_1": "cat", "blank_2": "rug", "blank_3": "window"})]
    found = aggregate(design, answers)
    assert found["ages"].method == "median" and found["ages"].items["c1"] == {"low": 25, "high": 70}
    assert found["ages"].alpha is not None and found["ages"].alpha > 0.8  # ends far apart across items
    assert found["blame"].items["c1"] == {"driver": 8, "city": 2}  # a label not given counts as 0
    assert found["fill"].items["c1"] == {"blank_1": "cat", "blank_2": "rug", "blank_3": "door"}


def test_soft_label_imports_as_points_that_start_spread(tmp_path):
    config = ROOT / "tests" / "designs" / "potato_side_by_side" / "budgets" / "config.yaml"
    out = tmp_path / "budgets.html"
    result = subprocess.run([sys.executable, "manage.py", "design", "preview", str(config), "--potato", "--html",
                             str(out)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "stance (constant_sum)" in result.stdout and "blame (constant_sum)" in result.stdout
    page = out.read_text()
    # Potato's soft label starts at 34, 33, 33; the cloze's keys (cat, kitten, mat) are nowhere on the page.
    assert [f'value="{start}" data-sets="a-1-2-{place}"' in page for place, start in ((1, 34), (2, 33), (3, 33))] == [
        True] * 3
    assert 'aria-label="Blank 2 of 2"' in page and "kitten" not in page and "[[" not in page
    assert "crowdsetPoints" in page  # the widgets' own script, inlined as on MTurk


def test_a_range_and_points_are_kept_by_keys_on_a_phone(chromium, live_server, capsys):
    """Keys only, 390 px: a range's end pushed past the other takes it along; points not all shared out keep the item
    open, and say what is left; axe finds nothing serious."""
    from tests.browser import axe_clean
    from tests.designs.fixtures import hit_page, potato_project, project_annotator
    from tests.test_accessibility import PHONE

    project = potato_project(ROOT / "tests" / "designs" / "potato_side_by_side" / "budgets" / "config.yaml", capsys)
    batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    first = page.locator(".task-item").first
    ends = first.locator("[data-scheme=plausible] output")
    first.locator("[data-scheme=plausible] input[type=range]").first.focus()
    page.keyboard.press("End")  # the low end to 100 takes the high end along
    assert ends.all_inner_texts() == ["100", "100"]
    page.keyboard.press("Tab")
    page.keyboard.press("Home")  # the high end to 0 takes the low end along
    assert ends.all_inner_texts() == ["0", "0"]
    page.keyboard.press("Tab")
    page.keyboard.type("6")
    status = first.locator("[data-scheme=blame] .points-status")
    assert status.inner_text() == "Shared out: 6 of 10 · left: 4"
    assert first.get_attribute("class").split().count("done") == 0  # 6 of 10 points cannot be sent
    page.keyboard.press("Tab")
    page.keyboard.type("9")  # capped at what is left
    assert first.locator("[data-scheme=blame] input").nth(1).input_value() == "4"
    assert status.inner_text() == "Shared out: 10 of 10 · left: 0"
    assert "done" in first.get_attribute("class").split()
    axe_clean(page, "potato-budgets-phone")
    context.close()
