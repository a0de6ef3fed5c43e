"""Design files: the shipped ones load, the schema is the model's, and every kind of mistake is named with its
file, line and key (never a traceback), with a "did you mean" for typos."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from designs.loader import DesignError, load_bytes, load_file, load_text, schema_json
from designs.model import TYPE_NAMES as SCHEME_TYPES

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "designs").glob("*.yaml"))


def problems(text, name="study.yaml"):
    with pytest.raises(DesignError) as caught:
        load_text(text, name=name)
    return [str(problem) for problem in caught.value.problems]


def test_it_ships_the_five_seed_designs_and_timetravel_s_evaluation_and_each_loads():
    assert [path.name for path in SHIPPED] == ["bcopa.yaml", "cheap-facts.yaml", "semeval-subtask1.yaml",
                                               "semeval-subtask2.yaml", "timetravel-comparisons.yaml",
                                               "timetravel-ratings.yaml", "timetravel.yaml"]
    designs = {path.stem: load_file(path) for path in SHIPPED}
    subtask2 = designs["semeval-subtask2"]
    assert [s.annotation_type for s in subtask2.annotation_schemes] == ["radio", "span", "text"]
    assert subtask2.scheme("spans").display_logic.show_when[0].schema_ == "counterfactual"
    rules = designs["semeval-subtask1"].aggregation["counterfactual"].rules
    assert [(rule.outcome, rule.min_votes) for rule in rules] == [("positive", 5), ("negative-100", 5),
                                                                  ("negative-80", 4)]
    assert [stage.name for stage in designs["timetravel"].stages] == ["write", "check"]


def test_the_shipped_schema_is_the_one_the_model_generates_and_accepts_the_shipped_designs():
    shipped = (ROOT / "designs" / "schema.json").read_text()
    assert shipped == schema_json(), "run `python manage.py design schema` and commit designs/schema.json"
    schema = json.loads(shipped)
    for path in SHIPPED:
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"title": "x", "annotation_schemes": [{"annotation_type": "radoi", "name": "a"}]}, schema)


def test_a_misspelt_scheme_type_names_the_line_and_the_allowed_types():
    found = problems("title: t\nannotation_schemes:\n  - name: a\n    annotation_type: radoi\n    labels: [x, y]\n",
                     name="bcopa.yaml")
    assert found == [f"bcopa.yaml:4: annotation_schemes.0.annotation_type: annotation_type 'radoi' is not one of "
                     f"{', '.join(SCHEME_TYPES)}; did you mean 'radio'?"]


def test_unknown_keys_get_a_did_you_mean_at_their_own_line():
    found = problems("title: t\nannotation_schemes:\n  - annotation_type: radio\n    name: a\n    labels: [x]\n"
                     "    lables: [y]\nhits:\n  items_per_hit: 5\n  rewrd: 1\n")
    assert "study.yaml:6: annotation_schemes.0.lables: unknown key 'lables'; did you mean 'labels'?" in found
    assert "study.yaml:9: hits.rewrd: unknown key 'rewrd'; did you mean 'reward'?" in found


def test_repeated_labels_keys_schemes_and_a_display_logic_to_nowhere_are_refused_by_name():
    assert problems("title: t\nannotation_schemes:\n  - {annotation_type: radio, name: a, labels: [x, x]}\n") == [
        "study.yaml:3: annotation_schemes.0.labels: two labels have the label 'x'; each must be different"]
    found = problems("title: t\nannotation_schemes:\n  - annotation_type: radio\n    name: a\n    labels:\n"
                     "      - {name: x, key_value: '1'}\n      - {name: y, key_value: '1'}\n")
    assert found == ["study.yaml:5: annotation_schemes.0.labels: two labels have the key_value '1'; each must be "
                     "different"]
    found = problems("title: t\nannotation_schemes:\n  - {annotation_type: radio, name: a, labels: [x]}\n"
                     "  - annotation_type: text\n    name: b\n    display_logic:\n      show_when:\n"
                     "        - {schema: c, value: x}\n  - {annotation_type: likert, name: a}\n")
    assert found == [
        "study.yaml:8: annotation_schemes.1.display_logic.show_when.0.schema: names the scheme 'c', which the design "
        "does not declare; its schemes are a, b, a",
        "study.yaml:9: annotation_schemes.2.name: 'a' is the name of an earlier scheme too; names must differ"]


def test_an_aggregation_must_fit_its_scheme_and_components_must_exist():
    found = problems("title: t\nannotation_schemes:\n  - {annotation_type: text, name: a}\naggregation:\n"
                     "  a: {method: majority}\ncomponents: [fleis-kappa]\n")
    assert found == ["study.yaml:5: aggregation.a.method: 'majority' does not fit a text scheme; use one of none",
                     "study.yaml:6: components.0: unknown component 'fleis-kappa'; did you mean 'fleiss-kappa'?"]


def test_a_stage_must_read_an_earlier_stage_and_name_declared_schemes():
    found = problems("title: t\nannotation_schemes:\n  - {annotation_type: text, name: a}\nstages:\n"
                     "  - {name: one, schemes: [a], from_stage: two}\n  - {name: two, schemes: [b]}\n")
    assert found[0] == ("study.yaml:5: stages.0.from_stage: 'two' is not an earlier stage; use one of (none: the "
                        "first stage reads the items)")
    assert found[1].startswith("study.yaml:6: stages.1.schemes: names the scheme 'b'")


@pytest.mark.parametrize(("data", "expected"), [
    (b"", "study.yaml:1: is empty; a design file is a mapping of keys (title, annotation_schemes, ...)"),
    (b"- a\n- b\n", "study.yaml:1: is a list; a design file is a mapping"),
    (b"title: [unclosed\n", "study.yaml:2: not valid YAML"),
    (b"title: caf\xe9\n", "study.yaml:1: invalid UTF-8 at byte 10; save it as UTF-8"),
    (b"title: t\n", "study.yaml:1: annotation_schemes: is missing; add it"),
    (b"title: t\nannotation_schemes: []\n", "study.yaml:2: annotation_schemes: is empty; a design asks at least one "
                                             "question: list its schemes here (annotation_type, name)"),
    (b"title: !!python/object/apply:os.system ['true']\nannotation_schemes: []\n", "study.yaml:1: not valid YAML"),
    (b"title: t\nannotation_schemes:\n  - annotation_type: text\n    name: a\n    display_logic: {show_when: []}\n",
     "study.yaml:5: annotation_schemes.0.display_logic.show_when: is empty; give at least one"),
    (b"title: t\nitems: [id]\nannotation_schemes:\n  - {annotation_type: text, name: a}\n",
     "study.yaml:2: items: is a list; it must be a mapping of keys ({key: value}, or key: value lines under it)"),
    (b"title: ''\nannotation_schemes:\n  - {annotation_type: text, name: a}\n", "study.yaml:1: title: is empty; "
                                                                                "write it"),
    (b"title: " + b"x" * 201 + b"\nannotation_schemes:\n  - {annotation_type: text, name: a}\n",
     "study.yaml:1: title: is 201 characters long; give at most 200"),
])
def test_broken_files_are_refused_with_where_and_what(data, expected):
    with pytest.raises(DesignError) as caught:
        load_bytes(data, name="study.yaml")
    assert str(caught.value.problems[0]).startswith(expected.split(" is 'list'")[0]), caught.value.problems


@pytest.mark.parametrize(("text", "expected"), [
    ("title: t\nannotation_schemes:\n  - annotation_type: radio\n    name: a\n   labels: [x, y]\n",
     "study.yaml:5: not valid YAML: the indentation is off: this line is indented more or less than the lines at "
     "its level"),
    ("title: t\n\tannotation_schemes: []\n", "study.yaml:2: not valid YAML: a tab is used to indent; indent with "
                                               "spaces"),
    ("title: t\nannotation_schemes\n  - {annotation_type: text, name: a}\n",
     "study.yaml:2: not valid YAML: a key without its colon: write 'key: value'"),
    ("title: t\nannotation_schemes: [a, b\n", "study.yaml:3: not valid YAML: a list in [ ] is not closed, or lacks "
                                              "a comma between its entries"),
    ("title: 'open\n", "study.yaml:2: not valid YAML: a quote is opened and not closed"),
    ("title: a: b\n", "study.yaml:1: not valid YAML: a colon where a value was expected"),
])
def test_yaml_mistakes_are_named_by_line_in_plain_words(text, expected):
    with pytest.raises(DesignError) as caught:
        load_text(text, name="study.yaml")
    assert str(caught.value.problems[0]).startswith(expected), caught.value.problems
    assert "<block" not in str(caught.value.problems[0])


def test_aliases_that_loop_or_multiply_are_refused_at_their_key_and_a_plain_one_is_read():
    """A YAML alias is the value its anchor marks again: one inside that value would make it hold itself without
    end, and aliases of lists of aliases (a "billion laughs") make a few lines millions of values, which every
    reading and the check run as one types would walk. Each is refused at its key; a plain alias reads as the
    value written twice, and lists nested past what can be read are refused, not a crash."""
    looped = "title: T\nannotation_schemes: &a\n  - annotation_type: radio\n    name: q\n    labels: *a\n"
    with pytest.raises(DesignError) as caught:
        load_text(looped, name="study.yaml")
    assert [str(problem) for problem in caught.value.problems] == [
        "study.yaml:5: annotation_schemes.0.labels: an alias (*name) inside what its anchor (&name) marks holds that "
        "again without end; write the values out"]

    laughs = ["title: T", "l0: &l0 [a, a, a, a, a, a, a, a, a]"]
    laughs += [f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]" for level in range(1, 9)]
    with pytest.raises(DesignError) as caught:
        load_text("\n".join([*laughs, "annotation_schemes: [{annotation_type: radio, name: q, labels: [a, b]}]"]),
                  name="study.yaml")
    assert [str(problem) for problem in caught.value.problems] == [
        "study.yaml:7: l5: its aliases (*name) repeat what they name so often that the file holds over 200,000 "
        "values; write the values out instead of aliases of aliases"]

    with pytest.raises(DesignError, match=r"study\.yaml: is nested too deeply to read"):
        load_text("title: " + "[" * 5000 + "]" * 5000 + "\n", name="study.yaml")

    shared = load_text("title: T\nannotation_schemes:\n  - {annotation_type: radio, name: a, labels: &yn [yes, no]}"
                       "\n  - {annotation_type: radio, name: b, labels: *yn}\n")
    assert [[label.name for label in scheme.labels] for scheme in shared.annotation_schemes] == [["yes", "no"]] * 2


def test_labels_written_as_yaml_booleans_or_numbers_keep_the_text_written():
    design = load_text("title: t\nannotation_schemes:\n  - {annotation_type: radio, name: a, labels: [yes, no, 1]}\n")
    assert [label.name for label in design.annotation_schemes[0].labels] == ["yes", "no", "1"]


def test_design_check_prints_each_problem_and_exits_1_and_json_lists_them(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: t\nannotation_schemes:\n  - {annotation_type: radoi, name: a}\n")
    run = subprocess.run([sys.executable, "manage.py", "design", "check", str(SHIPPED[0]), str(bad)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1
    assert "bcopa.yaml: valid (Which alternative is more plausible?: 1 scheme: choice)" in run.stdout
    assert f"{bad}:3: annotation_schemes.0.annotation_type: annotation_type 'radoi' is not one of" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    run = subprocess.run([sys.executable, "manage.py", "design", "check", "--json", str(bad)], cwd=ROOT,
                         capture_output=True, text=True)
    report = json.loads(run.stdout)
    assert report[0]["valid"] is False and report[0]["problems"][0]["line"] == 3
    assert report[0]["problems"][0]["key"] == "annotation_schemes.0.annotation_type"
