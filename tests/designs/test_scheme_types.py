"""Every scheme type is one class in one module holding every part a type has, and nothing else names it: the
design model's union, the list of types and every per-type table come from the registry. Adding a type is adding
a module and a widget (docs/development.md): done here for a toy type, in a process of its own."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from designs.loader import load_text
from designs.model import TYPE_NAMES
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.schemes.base import SchemeType, missing_parts

ROOT = Path(__file__).resolve().parent.parent.parent
# Hidden top-level folders are environments (.venv, .venv-hf, .venv-ls, .venv-llm), not product code.
PRODUCT = [path for path in ROOT.glob("*/**/*.py") if path.parts[len(ROOT.parts)] not in
           ("tests", "bench", "demo", "emulators", "docs", "site")
           and not path.parts[len(ROOT.parts)].startswith(".") and "migrations" not in path.parts]
EXAMPLES = ROOT / "docs" / "design-files" / "examples"


@pytest.mark.parametrize("kind", SCHEME_TYPES.in_order(), ids=lambda kind: kind.name)
def test_each_registered_type_has_every_part(kind):
    assert missing_parts(kind) == []


def test_a_type_that_lacks_a_part_is_named_with_what_it_lacks():
    class Half(SchemeType):
        name = "half"
        settings = SCHEME_TYPES.get("likert").settings  # someone else's settings
        aggregators = ()
        potato_keys = ("size", "colour")

    found = missing_parts(Half())
    assert "settings: a SchemeBase model whose annotation_type is Literal['half']" in found
    assert "aggregators: at least one (the first is the default)" in found
    assert {"read", "answer_schema", "widget: widgets/half.html"} <= set(found)


def test_the_list_of_types_is_the_registry_s():
    assert tuple(kind.name for kind in SCHEME_TYPES.in_order()) == TYPE_NAMES
    assert len(TYPE_NAMES) == 41


def test_a_type_s_name_is_written_only_in_its_own_module():
    """Product code asks the type (SCHEME_TYPES, its attributes, its settings class), never compares its name."""
    found = []
    for path in PRODUCT:
        module = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Potato's display names (designs/potato.py's *_DISPLAYS) are another namespace: its "pairwise" display
        # shows things side by side and is not our pairwise scheme. So are the kinds of an ego network's questions
        # (*_QUESTIONS: a "radio" question about each person named).
        displays = {id(node) for assign in ast.walk(tree) if isinstance(assign, ast.Assign)
                    and any(isinstance(target, ast.Name) and target.id.endswith(("_DISPLAYS", "_QUESTIONS"))
                            for target in assign.targets)
                    for node in ast.walk(assign.value)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in TYPE_NAMES and node.value != module \
                    and id(node) not in displays:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    # "text", "number" and "slider" are also ordinary words of other things (an item's text field, a version's number,
    # a constant sum's input_type: boxes or sliders).
    found = [place for place in found if not place.endswith(("'text'", "'number'", "'slider'"))]
    assert found == []


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda path: path.stem)
def test_each_type_s_answer_schema_is_a_json_schema_its_read_answers_fit(example):
    """The docs' example of each type: its answer schema checks as a schema, and every answer read from a form a
    person could send fits it (forms the type refuses are skipped; a type that answers reads at least one)."""
    design = load_text(example.read_text(encoding="utf-8"), name=example.name)
    first = json.loads((EXAMPLES / "items.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record = Record(first["id"], first["text"], first)
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        schema = kind.answer_schema(scheme)
        jsonschema.Draft202012Validator.check_schema(schema)
        answers = []
        for raw in _forms(scheme, record):
            try:
                answer = kind.read(scheme, Fields(raw, "a"), record)
            except AnswerProblem:
                continue
            if answer is not None:
                jsonschema.validate(answer, schema)
                answers.append(answer)
                # A page can start with the answer (a model's suggestion): its form fields read back as it.
                # Every answering type has them: an answer given as a value (a model's) is read as a person's.
                start = kind.form_fields(scheme, answer, record)
                assert start, (scheme.name, answer)
                form = {(f"a-{part}" if part else "a"): text for part, text in start.items()}
                assert kind.read(scheme, Fields(form, "a"), record) == answer, (scheme.name, start)
                # What Potato saves of it (its export's form) reads back as it too: a Potato project's saved work.
                saved = {**kind.potato_answer(scheme, answer, record), "spans_by_id": _spans_named(scheme, answer)}
                form = {(f"a-{part}" if part else "a"): text for part, text in
                        kind.potato_fields(scheme, saved, record).items()}
                assert kind.read(scheme, Fields(form, "a"), record) == answer, (scheme.name, saved)
        assert bool(answers) == kind.answers, (scheme.name, answers)


def _spans_named(scheme, answer):
    """The spans of another scheme that a link's or an event's Potato form names by id, as Potato saves them."""
    ends = [end for each in answer if isinstance(each, dict) for end in (
        [each.get("from"), each.get("to"), each.get("trigger"), *each.get("arguments", [])]) if isinstance(end, dict)] \
        if isinstance(answer, list) else []
    return {f"{scheme.span_schema}_{end['label']}_{end['start']}_{end['end']}": {
        "start": end["start"], "end": end["end"], "name": end["label"]} for end in ends}


def _forms(scheme, record):
    """Form fields a person could send for a scheme: a choice, a number, each row rated, a pick of best and worst,
    a span, an order, a text. Most do not fit a given type; the test keeps those that do."""
    labels = [label.name for label in getattr(scheme, "labels", None) or []] or ["x"]
    rows = getattr(scheme, "options", None) or []
    yield {"a": labels[0]}
    yield {"a": labels[-1], "a-1": labels[0]}
    yield {"a": "1"}
    yield {"a": "3"}
    yield {"a": "10"}
    yield {f"a-{number}": labels[0] for number in range(1, len(rows) + 1)} if isinstance(rows, list) else {}
    yield {"a-best": "1", "a-worst": "2"}
    yield {"a": json.dumps([[3, 9, labels[0]]])}
    yield {"a": json.dumps(list(reversed(labels)))}
    yield {"a": "A statement of twelve words or so, as a person writes it here."}
    yield {"a-low": "2", "a-high": "10"}
    yield {"a": "2024-03-01"}
    yield {"a-1": str(getattr(scheme, "total_points", 100))}
    yield {"a-1": "would", "a-2": "changed"}
    yield {f"a-{number}": "A" if number < 4 else "B" for number in range(1, 11)}  # a price list's ten decisions
    yield {"a-1": "3"}  # a point for the second turn of a dialogue
    yield {"a-0": "question", "a-1": "answer", "a-1-ref": "0"}  # a discussion's acts, the second naming the first
    yield {"a-0-morphemes": "If", "a-0-gloss": "if", "a-translation": "If"}  # a word glossed
    yield {"a-0": labels[0]}  # the first triad's odd one out
    yield {"a-agent": "Bot", "a-step": "1", "a-reason": "It answered the wrong question."}  # a run's failure
    yield {"a-0": "correct", "a-0-notes": "fine"}  # a tool call's verdict
    yield {"a-verdict": "approve", "a-c0-category": "bug", "a-c0-line": "3", "a-c0-text": "Off by one."}  # a review
    yield {"a-0": "incorrect", "a-0-type": "tool_misuse", "a-0-severity": "major", "a-1": "correct"}  # steps judged
    yield {"a-0-0": "3", "a-team-0": "4", "a-m-0": "1"}  # an agent's and the team's points, a milestone
    yield {"a-0": "2", "a-0-flag-0": "1"}  # a handoff rated and flagged
    yield {"a": json.dumps({"critical_nodes": ["Bot"], "edges": []})}  # an agent on the critical path
    yield {"a-0": "deadlock"}  # the first contention of a run's calls
    yield {"a": json.dumps({"Money": ["rates", "bank"], "Time": [], "Weather": ["spring"]})}  # a sort, a group added
    yield {"a": "1", "a-0-0": "I will look it up.", "a-0-0-touched": "1",
           "a-0-0-reason": "It was vague."}  # a step corrected, and why
    yield {"a-0-0": "1", "a-0-1": "1", "a-0-note": "both"}  # the turns of a behaviour, and a note
    yield {"a": json.dumps({"items": ["apple", "pear", "plum"], "timings_ms": [900, 2100, 2600], "elapsed_ms": 3000})}
    yield {"a": json.dumps({"alters": [{"id": "a1", "name": "Ann", "named_in": ["discuss"]},
                                       {"id": "a2", "name": "Bob", "named_in": ["discuss"]}],
                            "attributes": {"a1": {"close": labels[0] if labels != ["x"] else "Very close"},
                                           "a2": {"close": "Not close", "years": 3}},
                            "ties": [["a1", "a2"]], "positions": {"a1": [0.5, 0.16], "a2": [0.5, 0.84]},
                            "census": {"a1|a2": True}})}  # a personal network of two who know each other
    kinds = [kind.name for kind in getattr(scheme, "link_types", None) or []] or ["x"]
    yield {"a": json.dumps([[kinds[0], [3, 9, "person"], [12, 20, "organisation"]]])}
    yield {"a-n1": "4", "a-n3": "2", "a-path": json.dumps(["q", "a"])}  # a tree's replies rated, a path through it
    for event in getattr(scheme, "event_types", None) or []:  # an event: its trigger ("raised") and each role's span
        yield {"a": json.dumps([[event.type, [24, 30, (event.trigger_labels or ["x"])[0]],
                                 [[argument.role, [7, 19, (argument.entity_types or ["x"])[0]]]
                                  for argument in event.arguments[:1]]]])}


def test_adding_a_type_is_a_module_and_a_widget(tmp_path):
    """A new module registered before the model is built: the union takes it, designs/schema.json would list it, a
    design using it loads and its answers are read; its widget is the one part a module cannot bring."""
    script = """
import json, os, sys
from pathlib import Path
import designs.schemes
import tests.designs.toy_scheme  # the new module, registered as designs/schemes/__init__.py registers its own
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"
import django; django.setup()
from designs.loader import load_text, schema_json
from designs.schemes import SCHEME_TYPES, Fields, Record
from designs.schemes.base import missing_parts
design = load_text("title: t\\nannotation_schemes:\\n  - {annotation_type: stars, name: s, stars: 4}\\n", name="t.yaml")
scheme = design.annotation_schemes[0]
kind = SCHEME_TYPES.of(scheme)
found = {"read": kind.read(scheme, Fields({"a": "3"}, "a"), Record("1", "x")), "in_schema": '"stars"' in schema_json(),
         "without_widget": missing_parts(kind)}
Path(sys.argv[1], "stars.html").write_text("<p>stars</p>")
found["with_widget"] = missing_parts(kind, Path(sys.argv[1]))
print(json.dumps(found))
"""
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["read"] == 3 and found["in_schema"]
    assert found["without_widget"] == ["widget: widgets/stars.html"]
    assert found["with_widget"] == []


def test_a_text_cut_at_its_longest_keeps_no_trailing_space_and_reads_back_as_itself():
    # Cut at 200 characters just before a space: the stored text must not end with it, or the answer's own form (a
    # suggestion, a model's answer) would read back without it, as another answer.
    assert Fields({"a-x": "  " + "a" * 199 + " b"}, "a").get("x", 200) == "a" * 199
    design = load_text((EXAMPLES / "cloze.yaml").read_text(encoding="utf-8"), name="cloze.yaml")
    scheme = design.scheme("summary")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("n1", "x", {})
    answer = kind.read(scheme, Fields({"a-1": "would", "a-2": "a" * 199 + " b"}, "a"), record)
    assert answer["blank_2"] == "a" * 199
    form = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer, record).items()}
    assert kind.read(scheme, Fields(form, "a"), record) == answer


@pytest.mark.parametrize(("example", "scheme", "entry"), [
    ("span_link", "relations", [["works_for"], [0, 2, "person"], [3, 5, "organisation"]]),
    ("span_link", "relations", [{"type": "works_for"}, [0, 2, "person"], [3, 5, "organisation"]]),
    ("event_annotation", "events", [["RAISE"], [0, 2, "trigger"], []]),
    ("event_annotation", "events", ["RAISE", [0, 2, "trigger"], [[["agent"], [3, 5, "actor"]]]]),
])
def test_a_link_or_event_whose_type_or_role_is_not_a_name_is_refused_not_a_crash(example, scheme, entry):
    design = load_text((EXAMPLES / f"{example}.yaml").read_text(encoding="utf-8"), name=f"{example}.yaml")
    found = design.scheme(scheme)
    with pytest.raises(AnswerProblem, match=r"is not an? (link|event|argument) \["):
        SCHEME_TYPES.of(found).read(found, Fields({"a": json.dumps([entry])}, "a"), Record("n1", "If it had rained.",
                                                                                           {}))
