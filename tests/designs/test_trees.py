"""tree_annotation (Potato's tree_annotation over its conversation_tree display): each node of an item's tree asked
the node scheme, read as that scheme reads its own answer, and a path of nodes in the order marked
(test_potato_side_by_side.py drives it by keyboard beside Potato's page)."""

import json

import pytest

from designs.answers import read_item
from designs.loader import DesignError, load_text
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.schemes.tree_annotation import node_of, nodes

SOURCE = """title: Replies
annotation_schemes:
  - annotation_type: tree_annotation
    name: replies
    description: Judge each reply.
    node_scheme: {annotation_type: radio, labels: [good, bad]}
    path_selection: {enabled: true}
"""
TREE = {"id": "q", "speaker": "User", "text": "Hi?", "children": [
    {"id": "a", "speaker": "Bot A", "text": "Hello.", "children": [{"id": "a1", "speaker": "User", "text": "Thanks."}]},
    {"id": "b", "speaker": "Bot B", "text": "Go away."}]}


def _read(raw, tree=TREE):
    design = load_text(SOURCE, name="replies.yaml")
    return read_item(design, Record("t1", "", {"tree": tree}), {f"a-1-0{key}": value for key, value in raw.items()},
                     1)[0]


def test_each_node_is_asked_the_node_scheme_and_a_path_is_its_nodes_in_order():
    scheme = load_text(SOURCE, name="replies.yaml").scheme("replies")
    assert [(node["id"], node["depth"], node["replies"]) for node in nodes(scheme, Record("t1", "", {"tree": TREE}))
            ] == [("q", 0, 2), ("a", 1, 1), ("a1", 2, 0), ("b", 1, 0)]
    assert node_of(scheme).name == "replies_node" and node_of(scheme).description == "Annotate this node"
    answer = _read({"-n1": "good", "-n3": "bad", "-path": json.dumps(["q", "b"])})
    assert answer["replies"] == {"nodes": {"a": "good", "b": "bad"}, "path": ["q", "b"]}
    assert _read({"-path": json.dumps(["a"])})["replies"] == {"nodes": {}, "path": ["a"]}
    assert "replies" not in _read({})  # nothing given: no answer
    for raw, said in (({"-n1": "fine"}, "Bot A 'a': 'fine' is not one of"),
                      ({"-path": json.dumps(["q", "z"])}, "the path must be node ids of this tree \\(q, a, a1, b\\)"),
                      ({"-path": json.dumps(["q", "q"])}, "the path names a node twice")):
        with pytest.raises(AnswerProblem, match=said):
            _read(raw)


def test_a_node_scheme_must_be_one_a_node_can_be_asked():
    with pytest.raises(DesignError, match="node_scheme: annotation_type 'span' cannot be asked of each node; it may "
                                          "be radio, select, likert, number"):
        load_text(SOURCE.replace("annotation_type: radio, labels: [good, bad]", "annotation_type: span, labels: [x]"),
                  name="replies.yaml")
    with pytest.raises(DesignError, match="asks nothing"):
        load_text(SOURCE.replace("    node_scheme: {annotation_type: radio, labels: [good, bad]}\n", "")
                  .replace("enabled: true", "enabled: false"), name="replies.yaml")


def test_an_item_without_a_tree_or_with_a_node_twice_is_refused_before_a_batch_is_made():
    scheme = load_text(SOURCE, name="replies.yaml").scheme("replies")
    kind = SCHEME_TYPES.of(scheme)
    assert "has no conversation tree under 'tree'" in kind.item_problem(scheme, Record("t2", "", {"tree": "oops"}))
    twice = {**TREE, "children": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}
    assert "two nodes with the same id" in kind.item_problem(scheme, Record("t3", "", {"tree": twice}))
    assert kind.item_problem(scheme, Record("t4", "", {"tree": json.dumps(TREE)})) is None  # JSON text, as Potato
    # Replies that are not a list (a hand-made file's `children: true`) are none: the root alone is asked.
    leaf = {**TREE, "children": True}
    assert kind.item_problem(scheme, Record("t5", "", {"tree": leaf})) is None
    assert [node["id"] for node in nodes(scheme, Record("t5", "", {"tree": leaf}))] == ["q"]


def test_answers_combine_node_by_node_and_write_as_potato_keeps_them():
    scheme = load_text(SOURCE, name="replies.yaml").scheme("replies")
    kind = SCHEME_TYPES.of(scheme)
    one = {"nodes": {"a": "good", "b": "bad"}, "path": ["q", "a"]}
    two = {"nodes": {"a": "good"}, "path": ["q", "a"]}
    three = {"nodes": {"a": "bad", "b": "bad"}, "path": ["q", "b"]}
    assert kind.combine(scheme, [one, two, three]) == {"nodes": {"a": "good", "b": "bad"}, "path": ["q", "a"]}
    assert kind.potato_answer(scheme, one, None) == {"labels": {
        "selected_path": '["q","a"]', "node_annotations": '{"a":{"replies_node":"good"},"b":{"replies_node":"bad"}}'}}
    record = Record("t1", "", {"tree": TREE})
    assert kind.read(scheme, _fields(kind.form_fields(scheme, one, record)), record) == one


def _fields(form):
    return Fields({(f"a-{part}" if part else "a"): text for part, text in form.items()}, "a")


def test_a_conversation_tree_shown_without_a_tree_scheme_is_drawn_as_a_thread():
    """Potato's conversation_tree display on its own: each reply under what it answers, indented by its depth."""
    from designs.dialogue import drawn

    said = drawn(TREE, None)
    assert said.threaded
    assert [(turn["speaker"], turn["text"], turn.get("depth", 0)) for turn in said] == [
        ("User", "Hi?", 0), ("Bot A", "Hello.", 1), ("User", "Thanks.", 2), ("Bot B", "Go away.", 1)]
    assert drawn({"id": "x", "text": "not a tree"}, None) is None  # a mapping without replies is not drawn so


def test_a_conversation_tree_folds_replies_from_its_collapsed_depth_as_potato_does(chromium, live_server, tmp_path,
                                                                                   capsys):
    """Potato folds a node's replies from `collapsed_depth` down (2 unless the display says): here 1, so Bot A's
    reply starts hidden behind Bot A's toggle; Enter on the toggle shows it and folds it again. The root's replies
    are open, and a node without replies has no toggle; Collapse all and Expand all set every toggle. On the phone a
    reply's depth label sits beside its words, not over them."""
    from hits.services import batch_publish
    from tests.designs.fixtures import hit_page, potato_project, project_annotator
    from tests.test_accessibility import PHONE, _check

    long = json.loads(json.dumps(TREE))
    long["children"][0]["text"] = "Hello. You can return it from your orders page within thirty days of delivery."
    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "t1", "tree": long}) + "\n")
    (tmp_path / "config.yaml").write_text("""annotation_task_name: Trees
data_files: [data.jsonl]
item_properties: {id_key: id, text_key: id}
instance_display:
  fields:
    - {key: tree, type: conversation_tree, collapsed_depth: 1}
annotation_schemes:
  - {annotation_type: radio, name: best, description: "Which is better?", labels: [Bot A, Bot B]}
""")
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    turns = page.locator(".task-item.current .turn")
    assert [turn.is_visible() for turn in turns.all()] == [True, True, False, True]
    folds = page.locator(".task-item.current .turn-fold")
    assert folds.count() == 2 and folds.nth(0).get_attribute("aria-expanded") == "true"
    bot_a = folds.nth(1)
    assert bot_a.text_content() == "▶ 1 branch" and bot_a.get_attribute("aria-expanded") == "false"
    bot_a.focus()
    page.keyboard.press("Enter")
    assert [turn.is_visible() for turn in turns.all()] == [True, True, True, True]
    assert bot_a.get_attribute("aria-expanded") == "true"
    _check(page, "potato-tree-folds", "phone")
    # Each line of Bot A's words (wrapped at 390 px) clear of its "↳ depth 1" label.
    assert page.locator(".task-item.current .turn").nth(1).evaluate("""turn => {
        const label = turn.querySelector(".turn-depth").getBoundingClientRect();
        const words = document.createRange();
        words.selectNodeContents(turn.querySelector(".pre-line"));
        const lines = [...words.getClientRects()];
        return lines.length > 1 && lines.every(line => line.right <= label.left || line.left >= label.right
            || line.bottom <= label.top || line.top >= label.bottom);
    }""")
    folds.nth(0).focus()
    page.keyboard.press("Enter")  # the root folded: every reply under it hidden, Bot A's open fold with them
    assert [turn.is_visible() for turn in turns.all()] == [True, False, False, False]
    page.keyboard.press("Enter")
    assert [turn.is_visible() for turn in turns.all()] == [True, True, True, True]
    for button, shown in (("Collapse all", [True, False, False, False]), ("Expand all", [True] * 4)):
        page.get_by_role("button", name=button).focus()
        page.keyboard.press("Enter")
        assert [turn.is_visible() for turn in turns.all()] == shown
        assert {fold.get_attribute("aria-expanded") for fold in folds.all()} == {str(button == "Expand all").lower()}
    context.close()


def test_a_display_s_own_keys_are_its_options_and_those_not_run_are_named(tmp_path):
    """Potato reads an instance_display field's keys beside key, type and label as its display options: a
    conversation tree's collapsed_depth there is run, its node_style named as not run, as under display_options."""
    from designs.potato import import_file

    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "t1", "tree": TREE}) + "\n")
    config = tmp_path / "config.yaml"
    config.write_text("""annotation_task_name: Trees
data_files: [data.jsonl]
item_properties: {id_key: id, text_key: tree}
instance_display:
  fields:
    - {key: tree, type: conversation_tree, collapsed_depth: 1, display_options: {node_style: compact}}
annotation_schemes:
  - {annotation_type: radio, name: best, description: "Which is better?", labels: [Bot A, Bot B]}
""")
    found = import_file(str(config))
    assert found.ok, found.errors
    assert found.warnings == ["instance_display.fields.0 ('tree'): display_options node_style not "
                              "run here: the conversation_tree is shown without it"]
    assert found.design.items.dialogues["tree"].collapsed_depth == 1
