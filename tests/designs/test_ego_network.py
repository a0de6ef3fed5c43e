"""Potato's ego_network: a design's stages read and refused where Potato refuses them (with the line), a network
read as its page keeps it and refused where it does not fit, a required network held to what its steps ask, and the
page by keyboard: Enter names a person without sending the page, later steps wait for the first generator's least
people, a draft comes back after a reload, and a model's answer is a person's."""

import json

import pytest
from playwright.sync_api import expect

from designs.potato import UploadedFolder, import_config
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields
from designs.schemes.base import Record

ITEMS = UploadedFolder({"items.jsonl": b'{"id": "1", "text": "Think of the last six months."}\n'})
CONFIG = """annotation_task_name: Networks
data_files: [items.jsonl]
annotation_schemes:
  - annotation_type: ego_network
    name: net
    description: Your network
    label_requirement: {{required: true}}
    stages:
{stages}
"""
STAGES = """      - {type: name_generator, id: talk, min_alters: 2, max_alters: 3}
      - type: name_interpreter
        questions:
          - {name: close, description: "How close is {name}?", labels: [Very, Not], required: true}
          - {name: met, type: multiselect, labels: [work, school, family]}
          - {name: years, type: number, min: 0, max: 99}
      - {type: dyad_census, strength_labels: [Strong, Weak]}
      - {type: sociogram, relation: knows}"""


def _imported(stages: str = STAGES):
    return import_config(CONFIG.format(stages=stages).encode(), name="c.yaml", folder=ITEMS)


@pytest.mark.parametrize(("stages", "said"), [
    ("      - {type: dyad_census}\n      - {type: name_generator}",
     "a name_generator must come first, or there is nobody to ask about"),
    ("      - {type: name_generator, min_alters: 3, max_alters: 2}", "max_alters (2) is less than min_alters (3)"),
    ("      - {type: name_generator}\n      - {type: name_interpreter, questions: [{name: q, labels: [Yes, No]}]}",
     "quote Yes and No"),
    ("      - {type: name_generator}\n      - {type: name_interpreter, questions: [{name: q, labels: [only]}]}",
     "a radio question needs at least two labels"),
    ("      - {type: name_generator}\n      - {type: name_interpreter, questions: [{name: q, type: scale}]}",
     "type 'scale' is not one of radio, multiselect, number, text"),
    ("      - {type: name_generator, id: a}\n      - {type: sociogram, id: a}", "two stages have the id 'a'"),
    ("      - {type: name_generator, roster: [Ann], roster_field: people}", "a roster or a roster_field, not both"),
    ("      - {type: name_generator}\n      - {type: sociogram, rings: 9}", "less than or equal to 6"),
    ("      - {type: name_generator, colour: red}", "colour"),
])
def test_a_design_s_stages_are_refused_where_potato_refuses_them(stages, said):
    found = _imported(stages)
    assert not found.ok
    assert said in " ".join(found.errors), found.errors
    assert "c.yaml" in " ".join(found.errors)


def test_a_network_is_read_as_its_page_keeps_it_and_held_to_what_its_steps_ask():
    found = _imported()
    assert found.ok and found.warnings == [], (found.errors, found.warnings)
    scheme = found.design.scheme("net")
    kind = SCHEME_TYPES.of(scheme)
    assert [stage.id for stage in scheme.stages] == ["talk", "name_interpreter_2", "dyad_census_3", "sociogram_4"]
    assert [question.required for question in scheme.stages[1].questions] == [True, False, False]
    record = Record("1", "x", {})

    def read(value, on=scheme):
        return kind.read(on, Fields({"a": json.dumps(value)}, "a"), record)

    people = [{"id": "a1", "name": " Ann ", "named_in": ["talk"]}, {"id": "a2", "name": "Bob", "named_in": ["talk"]}]
    whole = {"alters": people, "attributes": {"a1": {"close": "Very", "years": 12}, "a2": {"close": "Not",
                                                                                       "met": ["work"]}},
             "ties": [["a1", "a2", "knows"]], "positions": {"a1": [0.5, 0.16], "a2": [0.84, 0.5]},
             "census": {"a1|a2": True}, "tie_attributes": {"a1|a2": {"strength": "Weak"}}}
    network = read(whole)
    assert network["alters"][0]["name"] == "Ann" and network["census"] == {"a1|a2": True}
    assert read(json.loads(kind.form_fields(scheme, network)[""])) == network  # a model's answer reads the same
    for value, said in (
            ({"alters": people[:1], "attributes": {"a1": {"close": "Very"}}},
             "Name people: name at least 2 people \\(1 so far\\)"),
            ({**whole, "alters": people[:1]}, "answers are given about 'a2', who is not among the people named"),
            ({**whole, "census": {}}, "Who knows whom: 0 of 1 pair answered"),
            ({**whole, "attributes": {"a1": {"close": "Very"}}},
             "About each person: 'How close is this person\\?' unanswered for 1 person"),
            ({**whole, "attributes": {"a1": {"close": "Maybe"}, "a2": {"close": "Not"}}},
             "Ann's close is not one of its labels"),
            ({**whole, "attributes": {**whole["attributes"], "a1": {"close": "Very", "years": 120}}},
             "Ann's years is outside 0 to 99"),
            ({**whole, "ties": [["a1", "a9"]]}, "joins no two people named"),
            ({**whole, "ties": [["a1", "a2", "likes"]]}, "names a relation no step draws"),
            ({**whole, "alters": [*people, {"id": "a3", "name": "Cy", "named_in": ["elsewhere"]}]},
             "'Cy' is named in no step"),
            ({**whole, "alters": [*people, *({"id": f"b{n}", "name": f"P{n}", "named_in": ["talk"]}
                                             for n in range(2))]}, "at most 3 people \\(4 named\\)"),
            ({**whole, "positions": {"a1": [1.5, 0]}}, "two numbers from 0 to 1"),
            ({**whole, "attributes": {**whole["attributes"], "a1": {"close": "Very", "years": -1}}},
             "Ann's years is outside 0 to 99"),
            ({"people": []}, "the network could not be read"),
            # Parts in a shape the page never writes (a form edited by hand) are refused, not a crash.
            ({**whole, "ties": 7}, "the network could not be read"),
            ({**whole, "census": [1]}, "the network could not be read"),
            ({**whole, "tie_attributes": "x"}, "the network could not be read"),
            ({**whole, "ties": [["a1", {}]]}, "joins no two people named"),
            ({**whole, "alters": [{**people[0], "named_in": [["talk"]]}, people[1]]}, "each person needs an id")):
        with pytest.raises(AnswerProblem, match=said):
            read(value)
    # An optional network is taken as it stands, short of what its steps ask (as Potato's page takes one).
    optional = scheme.model_copy(update={"label_requirement": None})
    assert read({"alters": people[:1]}, optional)["alters"][0]["id"] == "a1"
    written = json.loads(kind.potato_answer(scheme, network, record)["labels"]["net"])
    assert list(written) == ["alters", "attributes", "ties", "positions", "census", "tie_attributes"]
    assert list(written["alters"][0]) == ["id", "name", "named_in"]


def test_the_page_names_people_by_keyboard_and_keeps_them_across_a_reload(chromium, live_server, tmp_path, capsys):
    """On a 390 px phone: Enter adds a person (the page is neither sent nor moved on), a name given twice is said,
    later steps wait for the least people, and a reload brings the network back from the draft."""
    from hits.services import batch_publish
    from tests.designs.fixtures import hit_page, potato_project, project_annotator
    from tests.test_accessibility import PHONE, _check

    (tmp_path / "config.yaml").write_text(CONFIG.format(stages=STAGES))
    (tmp_path / "items.jsonl").write_bytes(ITEMS.files["items.jsonl"])
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    network = page.locator("[data-scheme=net]")
    network.locator(".ego-name").focus()
    page.keyboard.type("Ann")
    page.keyboard.press("Enter")
    assert network.locator(".ego-chips").first.inner_text().startswith("Ann")
    assert page.get_by_role("button", name="Step 3 of 4: Who knows whom").is_disabled()
    page.get_by_role("button", name="Next: About each person →").focus()
    page.keyboard.press("Enter")
    assert network.get_by_role("alert").inner_text() == "Name at least 2 people before going on."
    network.locator(".ego-name").focus()
    for name in ("ANN", "Bob"):
        page.keyboard.type(name)
        page.keyboard.press("Enter")
    expect(network.locator(".ego-status")).to_have_text("Bob added.")
    assert network.get_attribute("data-invalid") == "true"  # required: the rest of the steps are still to do
    expect(network.locator(".ego-left")).to_have_text(  # and said where it is seen, not only on hover
        "Still to do: About each person: 'How close is this person?' unanswered for 2 people; "
        "Who knows whom: 0 of 1 pair answered.")
    _check(page, "ego-network-names", "phone")
    expect(page.locator("#task-saved")).to_contain_text("Saved")  # the server keeps the draft
    page.reload()
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.locator("[data-scheme=net] .ego-chips li span").all_inner_texts() == ["Ann", "Bob"]
    context.close()


def test_a_roster_from_the_item_is_its_names_and_an_item_without_a_list_is_refused():
    found = _imported("      - {type: name_generator, id: class, roster_field: pupils}")
    assert found.ok, found.errors
    scheme = found.design.scheme("net")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "x", {"pupils": ["Ann", {"id": 7, "name": " Bob "}, {"name": ""}, 3]})
    assert json.loads(kind.widget_context(scheme, record, "a", {})["rosters"]) == {
        "class": [{"name": "Ann"}, {"name": "Bob", "id": "7"}, {"name": "3"}]}
    assert kind.item_problem(scheme, Record("2", "x", {"pupils": "Ann, Bob"})) == (
        "its pupils must be a list of names (the step 'class' picks from it)")
    assert kind.item_problem(scheme, record) is None
    # An item without the list: the step asks for names to be typed (the page says so).
    assert json.loads(kind.widget_context(scheme, Record("3", "x", {}), "a", {})["rosters"]) == {"class": []}


def test_a_number_with_one_bound_says_the_other_is_open_and_a_placing_sociogram_asks_no_lines():
    found = _imported("      - {type: name_generator, id: talk}\n"
                      "      - {type: name_interpreter, questions: [{name: age, type: number, min: 18}]}\n"
                      "      - {type: sociogram, allow_ties: false}")
    assert found.ok, found.errors
    scheme = found.design.scheme("net")
    assert scheme.stages[2].prompt == "Place the people: the closer to the centre, the closer they are to you."
    given = {"alters": [{"id": "a1", "name": "Ann", "named_in": ["talk"]}], "attributes": {"a1": {"age": 10}}}
    with pytest.raises(AnswerProblem, match="Ann's age is outside 18 to …"):
        SCHEME_TYPES.of(scheme).read(scheme, Fields({"a": json.dumps(given)}, "a"), Record("1", "x", {}))
