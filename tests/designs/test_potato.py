"""Potato projects imported unmodified: every text scheme type with its options, the data file shapes the
facts page lists (paths from task_dir; a string, a list or {path, format}; .json as an array or as JSON Lines),
server keys reported as ignored, and what cannot be shown refused with its line. The configs are our own."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from designs.export import export_batch
from designs.loader import load_text
from designs.models import DesignBatch
from designs.potato import UploadedFolder, import_config, import_file
from designs.schemes import Fields
from designs.schemes.base import Record, Requirement
from hits.models import Item
from projects.models import Project

ROOT = Path(__file__).resolve().parents[2]

# Written the way many Potato projects are: JSON-ish YAML with Python's True, server keys mixed in.
EVERY_TYPE = """\
{
  "port": 9001,
  "server_name": "potato annotator",
  "annotation_task_name": "Reviews, every scheme",
  "task_dir": "./",
  "output_annotation_dir": "annotation_output/",
  "output_annotation_format": "jsonl",
  "annotation_codebook_url": "https://example.org/codebook.pdf",
  "data_files": ["data/reviews.json", {"path": "data/more.tsv", "format": "tsv"}],
  "item_properties": {"id_key": "uid", "text_key": "body", "context_key": "product"},
  "user_config": {"allow_all_users": True, "users": []},
  "alert_time_each_instance": 600,
  "num_annotators_per_item": 3,
  "max_annotations_per_user": 40,
  "assignment_strategy": "random",
  "annotation_schemes": [
    {"annotation_type": "radio", "name": "sentiment", "description": "How does the review sound?",
     "labels": [{"name": "positive", "key_value": "p", "tooltip": "praises it", "color": "#2a7"},
                {"name": "negative", "key_value": "n"}, "mixed"],
     "has_free_response": {"instruction": "Something else"}, "horizontal": True,
     "label_requirement": {"required": True}},
    {"annotation_type": "multiselect", "name": "aspects", "description": "What does it talk about?",
     "labels": ["price", "quality", "delivery"], "sequential_key_binding": True},
    {"annotation_type": "select", "name": "country", "description": "Where is the writer?",
     "label_file": "labels/countries.txt"},
    {"annotation_type": "likert", "name": "helpful", "description": "How helpful is it?", "size": 7,
     "min_label": "not at all", "max_label": "very", "displaying_score": True},
    {"annotation_type": "slider", "name": "stars", "description": "Stars you would give",
     "min_value": 0, "max_value": 5, "starting_value": 3},
    {"annotation_type": "number", "name": "mentions", "description": "Products named", "min": 0, "max": 20},
    {"annotation_type": "text", "name": "summary", "description": "Sum it up",
     "textarea": {"on": True, "rows": 4, "cols": 60}, "allow_paste": False},
    {"annotation_type": "span", "name": "Opinion words", "description": "Mark the opinion words",
     "labels": [{"name": "good", "key_value": "g"}, {"name": "bad", "key_value": "b"}],
     "bad_text_label": {"label_content": "No opinion"},
     "display_logic": {"show_when": [{"schema": "sentiment", "operator": "not_equals", "value": "mixed"}]}},
    {"annotation_type": "multirate", "name": "facets", "description": "Rate each",
     "options": ["clarity", "tone"], "labels": ["low", "mid", "high"], "arrangement": "vertical"},
    {"annotation_type": "pure_display", "name": "break", "description": "Now compare the two replies."},
    {"annotation_type": "pairwise", "name": "reply", "description": "Which reply is better?", "mode": "binary",
     "items_key": "replies", "allow_tie": True, "tie_label": "Same"},
    {"annotation_type": "pairwise", "name": "reply_scale", "description": "By how much?", "mode": "scale",
     "items_key": "replies", "scale": {"min": -2, "max": 2, "step": 1,
                                        "labels": {"min": "A much better", "max": "B much better"}}},
    {"annotation_type": "pairwise", "name": "reply_dims", "mode": "multi_dimension", "items_key": "replies",
     "dimensions": [{"name": "fluency", "description": "Which reads better?"},
                    {"name": "facts", "description": "Which is more accurate?"}]},
    {"annotation_type": "bws", "name": "best_worst", "items_key": "tuple", "tuple_size": 4,
     "best_description": "Most positive", "worst_description": "Least positive"},
    {"annotation_type": "text", "name": "note", "description": "Anything else?",
     "display_logic": {"show_when": [{"schema": "helpful", "operator": "gte", "value": 5}]}}
  ],
  "site_dir": "default",
  "base_html_template": "default"
}
"""
REVIEW = {"product": "kettle", "replies": ["Thanks!", "Sorry to hear that."], "tuple": ["a", "b", "c", "d"]}


def _write_every_type(folder: Path) -> Path:
    (folder / "data").mkdir(parents=True)
    (folder / "labels").mkdir()
    (folder / "labels" / "countries.txt").write_text("Ireland\nKenya\n\nIndia\n")
    # One record a line, then one written over several lines: both occur in exported .json files.
    first = json.dumps({"uid": 1, "body": "Boils fast, but the lid broke.", **REVIEW})
    second = json.dumps({"uid": "r2", "body": "Great value.", **REVIEW}, indent=2)
    (folder / "data" / "reviews.json").write_text(f"{first}\n{second}\n")
    (folder / "data" / "more.tsv").write_text(
        "uid\tbody\treplies\ttuple\n"
        'r3\tArrived late.\t["Noted", "We are sorry"]\t["w", "x", "y", "z"]\n')
    config = folder / "config.yaml"
    config.write_text(EVERY_TYPE)
    return config


def test_every_text_scheme_type_carries_over_with_its_options(tmp_path):
    found = import_file(str(_write_every_type(tmp_path)))
    assert found.errors == [] and found.ok
    design = found.design
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    sentiment = schemes["sentiment"]
    assert sentiment.keys() == {"p": "positive", "n": "negative"} and sentiment.has_free_response
    assert sentiment.labels[0].tooltip == "praises it" and sentiment.labels[0].color == "#2a7"
    assert sentiment.horizontal and sentiment.required
    assert schemes["aspects"].keys() == {"1": "price", "2": "quality", "3": "delivery"}
    assert [label.name for label in schemes["country"].labels] == ["Ireland", "Kenya", "India"]
    assert (schemes["helpful"].size, schemes["helpful"].min_label, schemes["helpful"].max_label) == (
        7, "not at all", "very")
    assert (schemes["stars"].min_value, schemes["stars"].max_value, schemes["stars"].starting_value) == (0, 5, 3)
    assert (schemes["mentions"].min, schemes["mentions"].max) == (0, 20)
    assert schemes["summary"].textarea and schemes["summary"].rows == 4
    # A name Potato allows but ours does not is made to fit, and the display logic naming it still finds it.
    assert "Opinion_words" in schemes and schemes["Opinion_words"].display_logic.show_when[0].schema_ == "sentiment"
    assert schemes["facets"].options == ["clarity", "tone"]
    assert schemes["reply"].allow_tie and schemes["reply"].tie_label == "Same"
    assert (schemes["reply_scale"].scale.min, schemes["reply_scale"].scale.min_label) == (-2, "A much better")
    assert {"reply_dims.fluency", "reply_dims.facts"} <= set(schemes)
    assert schemes["reply_dims.facts"].description == "Which is more accurate?"
    assert schemes["best_worst"].best_description == "Most positive"
    assert schemes["note"].display_logic.show_when[0].operator == "gte"
    assert design.title == "Reviews, every scheme" and "codebook.pdf" in design.instructions
    assert design.hits.assignments_per_hit == 3
    assert (design.items.id_key, design.items.text_key) == ("uid", "body")
    assert [record.id for record in found.records] == ["1", "r2", "r3"]
    assert found.records[2].fields["replies"] == ["Noted", "We are sorry"]
    # Potato's server keys are ignored; what changes the study is a named warning with what happens instead.
    assert found.ignored == ["port", "server_name", "output_annotation_format",
                             "user_config", "site_dir", "base_html_template"]
    assert [warning.split(":")[0] for warning in found.warnings] == [
        "alert_time_each_instance", "max_annotations_per_user", "scheme 'summary'", "scheme 'Opinion words'",
        "scheme 'facets'"]
    assert schemes["helpful"].displaying_score  # the points' numbers shown, as Potato shows them
    # Potato's page: one item at a time; "random" keeps its shuffle (a seeded one here, the same for everyone).
    assert (design.hits.layout, design.hits.order) == ("item", "shuffled")
    # The design file it becomes is itself a valid design file.
    assert load_text(found.source()).annotation_schemes == design.annotation_schemes


def test_check_json_prints_one_exact_line_per_config_and_fails_when_any_is_not_ok(tmp_path):
    good = _write_every_type(tmp_path / "good")
    bad = tmp_path / "bad" / "config.yaml"
    bad.parent.mkdir()
    (bad.parent / "items.jsonl").write_text('{"id": "1", "text": "a picture"}\n')
    bad.write_text("annotation_task_name: Pictures\ndata_files: items.jsonl\n"
                   "item_properties: {id_key: id, text_key: text}\nannotation_schemes:\n"
                   "  - annotation_type: radio\n    name: ok\n    labels: [a, b]\n"
                   "  - annotation_type: image_annotation\n    name: boxes\n    labels: [cat]\n")
    missing = tmp_path / "nowhere.yaml"
    result = subprocess.run([sys.executable, "manage.py", "design", "import-potato", str(good), str(bad),
                             str(missing), "--check", "--json"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["config"] for line in lines] == [str(good), str(bad), str(missing)]
    assert [list(line) for line in lines] == [["config", "ok", "items", "schemes", "ignored", "warnings",
                                               "errors"]] * 3
    assert lines[0]["ok"] and lines[0]["items"] == 3 and lines[0]["errors"] == []
    assert lines[0]["schemes"][0] == {"name": "sentiment", "type": "radio"}
    assert lines[1]["ok"] is False and lines[1]["items"] == 0
    assert lines[1]["schemes"] == [{"name": "ok", "type": "radio"}, {"name": "boxes", "type": "image_annotation"}]
    assert lines[1]["errors"] == [f"{bad}:8: annotation_schemes.1.annotation_type: scheme 'boxes' has annotation_type "
                                  f"'image_annotation', which this platform cannot show; it shows text schemes: radio,"
                                  f" select, multiselect, likert, turn_rating, tree_annotation, failure_attribution, "
                                  f"tool_call_review, "
                                  f"code_review, trajectory_eval, trajectory_edit, agent_scorecard, handoff_review, "
                                  f"tool_contention, agent_interaction_graph, emergent_behavior, consensus_tracking, "
                                  f"interlinear_gloss, triad_test, slider, range_slider, number, list_experiment, "
                                  f"datetime, text, free_list, ego_network, "
                                  f"span, span_link, event_annotation, multi_document_event, pairwise, "
                                  f"bws, multirate, "
                                  f"price_list, conjoint, constant_sum, ranking, card_sort, cloze, pure_display (and "
                                  f"runs Potato's triage, randomized_response, hierarchical_multiselect, confidence, "
                                  f"context_attribution, vas, bdm, belief_elicitation, text_edit, error_span, "
                                  f"extractive_qa, coreference, semantic_differential, rubric_eval, process_reward, "
                                  f"soft_label as them)"]
    assert lines[2]["ok"] is False and "cannot read it" in lines[2]["errors"][0]
    assert "project" not in lines[0]  # --check makes nothing


@pytest.mark.django_db
def test_without_check_each_ok_config_becomes_a_project_with_its_items(tmp_path, capsys):
    config = _write_every_type(tmp_path)
    call_command("design", "import-potato", str(config), "--json")
    line = json.loads(capsys.readouterr().out)
    project = Project.objects.get(pk=line["project"])
    assert line["url"].endswith(f"/projects/{project.slug}/") and project.design == "design-file"
    batch = project.batches.get()
    assert Item.objects.filter(batch=batch).count() == 3
    assert batch.assignments_per_hit == 3
    source = DesignBatch.objects.get(batch=batch).version.source
    assert source.startswith("# Imported from the Potato config config.yaml.")
    call_command("design", "import-potato", str(config), "--json")  # the same title again: a second project
    assert Project.objects.count() == 2


PROBLEMS = [
    ("annotation_task_name: T\ndata_files: [a.jsonl]\nannotation_schemes:\n  - annotation_type: radio\n"
     "    name: q\n    labels: [x, y]\n    display_logic:\n      show_when:\n"
     "        - {schema: q, operator: matches, value: 'x.*'}\n",
     "config.yaml:9: annotation_schemes.0.display_logic.show_when.0.operator: operator 'matches' cannot be checked"),
    ("annotation_task_name: T\ndata_files: [a.jsonl]\nannotation_schemes:\n  - annotation_type: radio\n"
     "    name: q\n    lables: [x, y]\n", "config.yaml:4: annotation_schemes.0.labels: is missing; add it"),
    ("annotation_task_name: T\ndata_files: [a.jsonl]\nannotation_schemes:\n  - annotation_type: radio\n"
     "    name: q\n    labels: [{name: x, key_value: '1'}, {name: y, key_value: '1'}]\n",
     "config.yaml:6: annotation_schemes.0.labels: two labels have the key_value '1'"),
    ("annotation_task_name: T\ndata_files: [gone.jsonl]\nannotation_schemes:\n  - {annotation_type: text, name: q}\n",
     "config.yaml:2: data_files.0: cannot find gone.jsonl"),
    ("annotation_task_name: T\ndata_files: [a.jsonl, a2.jsonl]\nannotation_schemes:\n"
     "  - {annotation_type: text, name: q}\n", "a2.jsonl:1: the id '1' is used already in a.jsonl"),
    ("annotation_task_name: T\nitem_properties: {id_key: uid}\ndata_files: a.jsonl\nannotation_schemes:\n"
     "  - {annotation_type: text, name: q}\n", "a.jsonl:1: has no 'uid' field"),
    ("annotation_task_name: [broken\n", "config.yaml:2: not valid YAML"),
]


@pytest.mark.parametrize("config,expected", PROBLEMS)
def test_what_cannot_be_imported_is_named_by_file_and_line(config, expected):
    folder = UploadedFolder({"a.jsonl": b'{"id": 1, "text": "x"}\n', "a2.jsonl": b'{"id": 1, "text": "y"}\n'})
    found = import_config(config.encode(), name="config.yaml", folder=folder)
    assert not found.ok
    assert any(error.startswith(expected) for error in found.errors), found.errors


def test_a_config_without_schemes_is_told_so_once_in_potato_s_words():
    found = import_config(b"annotation_task_name: T\ndata_files: [a.jsonl]\n", name="config.yaml",
                          folder=UploadedFolder({"a.jsonl": b'{"id": 1, "text": "x"}\n'}))
    # The design's own "annotation_schemes: is empty" is not said again.
    assert found.errors == ["config.yaml:1: annotation_schemes: is missing or not a list; a Potato config lists its "
                            "schemes under annotation_schemes"]


def test_paths_resolve_from_task_dir_and_uploaded_files_are_found_by_name():
    config = (b"annotation_task_name: T\ntask_dir: project/\ndata_files:\n  - {path: data/items.csv, format: csv}\n"
              b"annotation_schemes:\n  - {annotation_type: likert, name: q, size: 3}\n")
    # Beside the config in its folder, and uploaded loose (the folder lost): both are found.
    for files in ({"project/data/items.csv": b"id,text\n1,hello\n"}, {"items.csv": b"id,text\n1,hello\n"}):
        found = import_config(config, name="config.yaml", folder=UploadedFolder(files))
        assert found.ok and [record.text for record in found.records] == ["hello"], found.errors


def test_a_json_array_data_file_and_a_single_string_data_files():
    config = (b"annotation_task_name: T\ndata_files: items.json\nannotation_schemes:\n"
              b"  - {annotation_type: text, name: q}\n")
    data = json.dumps([{"id": n, "text": f"t{n}"} for n in range(3)], indent=2).encode()
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.json": data}))
    assert found.ok and len(found.records) == 3


def test_a_task_dir_from_the_authors_machine_and_list_texts_still_import():
    config = (b"annotation_task_name: T\ntask_dir: /home/someone/potato/projects/t/\ndata_files: [data/items.jsonl]\n"
              b"list_as_text: {text_list_prefix_type: alphabet}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: q, labels: [first, second]}\n")
    data = b'{"id": 1, "text": ["The first option", "The second option"]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"data/items.jsonl": data}))
    assert found.ok, found.errors
    assert found.records[0].text == "The first option\nThe second option"  # nothing compares it: it is read
    assert "list_as_text" in found.ignored


def test_every_problem_of_a_config_is_reported_at_once():
    config = (b"annotation_task_name: T\ndata_files: a.jsonl\nannotation_schemes:\n"
              b"  - {annotation_type: radio, name: q, lables: [x, y]}\n"
              b"  - {annotation_type: audio_annotation, name: s}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"a.jsonl": b'{"id": 1, "text": "x"}\n'}))
    assert [error.split(": ")[0] for error in found.errors] == ["c.yaml:5", "c.yaml:4"]
    assert "did you mean 'labels'?" in " ".join(found.warnings)


# --- what an import cannot run is never "ok" ------------------------------------------------------------------

def _sentences(count):
    return "".join(json.dumps({"id": f"s{n}", "text": f"sentence {n}"}) + "\n" for n in range(count)).encode()


SENTENCES = _sentences(20)
BWS = (b"annotation_task_name: Which is most positive?\ndata_files: [items.jsonl]\n"
       b"annotation_schemes:\n  - {annotation_type: bws, name: bw, best_description: Most, worst_description: Least}\n")


def test_bws_config_draws_the_sets_potato_draws_from_single_items():
    found = import_config(BWS + b"bws_config: {tuple_size: 4}\n", name="c.yaml",
                          folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    sets = [[entry["source_id"] for entry in record.fields["bws_items"]] for record in found.records]
    # 20 items, each 2 × 4 times: 40 sets, every item in 8, none twice in one set.
    assert len(sets) == 40 and all(len(set(members)) == 4 for members in sets)
    assert {sentence: sum(sentence in members for members in sets) for sentence in sets[0]} == dict.fromkeys(
        sets[0], 8)
    # The sets Potato 2.12.1 draws for the same items and seed (its bws_tuple_generator, run beside ours).
    assert sets[:3] == [["s19", "s5", "s14", "s4"], ["s9", "s13", "s15", "s18"], ["s6", "s12", "s17", "s10"]]
    assert (found.records[-1].id, sets[-1]) == ("bws_tuple_0040", ["s10", "s8", "s17", "s3"])
    assert found.records[0].fields["text"] == ["sentence 19", "sentence 5", "sentence 14", "sentence 4"]
    assert [entry["position"] for entry in found.records[0].fields["bws_items"]] == ["A", "B", "C", "D"]
    smaller = import_config(BWS.replace(b"bw, ", b"bw, tuple_size: 3, ") + b"bws_config: {seed: 5, num_tuples: 6}\n",
                            name="c.yaml", folder=UploadedFolder({"items.jsonl": _sentences(7)}))
    assert [[entry["source_id"] for entry in record.fields["bws_items"]] for record in smaller.records] == [
        ["s6", "s3", "s1"], ["s0", "s5", "s2"], ["s4", "s3", "s2"], ["s4", "s6", "s1"], ["s0", "s5", "s4"],
        ["s5", "s2", "s0"]]


@pytest.mark.parametrize(("settings", "said"), [
    ("{seed: {}}", "c.yaml:5: bws_config.seed: {} is not a seed; give a whole number, or leave it out (42)"),
    ("{min_item_appearances: often}", "c.yaml:5: bws_config.min_item_appearances: 'often' is not a number of "
                                      "times; give 1 or more, or leave it out (twice the set size)"),
    ("{num_tuples: 1000000000000}", "c.yaml:5: bws_config: 1,000,000,000,000 sets are more than an import draws "
                                    "(100,000); give a smaller num_tuples or min_item_appearances"),
    ("{min_item_appearances: 100000}", "c.yaml:5: bws_config: 500,000 sets are more than an import draws"),
])
def test_a_bws_config_potato_could_not_draw_from_is_named_at_its_key(settings, said):
    """A seed, count or number of sets that is no such thing, or a draw of more sets than a project holds, is
    named once (not again as items without their sets), not a crash or an import drawing for hours."""
    found = import_config(BWS + f"bws_config: {settings}\n".encode(), name="c.yaml",
                          folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert len(found.errors) == 1 and found.errors[0].startswith(said), found.errors


def test_items_a_scheme_cannot_be_answered_on_are_an_error_with_their_line():
    found = import_config(BWS, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert not found.ok
    assert found.errors == ["items.jsonl:1: scheme 'bw': item 's0' has no list of 4 under 'text' to compare (and 19 "
                            "more of the 20 items); every item needs it; or let Potato's bws_config draw the sets "
                            "from single items"]
    pairs = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
             b"  - {annotation_type: pairwise, name: better, items_key: replies}\n")
    data = b'{"id": 1, "text": "x", "replies": ["a", "b"]}\n{"id": 2, "text": "y", "replies": ["only one"]}\n'
    found = import_config(pairs, name="c.yaml", folder=UploadedFolder({"items.jsonl": data}))
    assert found.errors == ["items.jsonl:2: scheme 'better': item '2' has no list of 2 under 'replies' to compare; "
                            "every item needs it"]


def test_a_design_files_items_are_checked_against_its_schemes(tmp_path):
    from designs.items import ItemsError, read_items

    design = load_text("title: Replies\nannotation_schemes:\n"
                       "  - {annotation_type: pairwise, name: better, items_key: replies}\n")
    with pytest.raises(ItemsError, match=r"^replies\.jsonl:2: scheme 'better': item 'b' has no list of 2"):
        read_items(b'{"id": "a", "text": "x", "replies": ["p", "q"]}\n{"id": "b", "text": "y"}\n',
                   name="replies.jsonl", design=design)


def test_blocks_and_settings_that_change_the_study_are_named_warnings():
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nnum_annotators_per_item: -1\n"
              b"port: 8000\nuser_config: {allow_all_users: false, users: [ann1@lab.org]}\n"
              b"training: {enabled: false, data_file: training.json}\nattention_checks: {enabled: true}\n"
              b"gold_standards: {enabled: true}\nfancy_new_feature: on\ncorpus_map: {enabled: true}\n"
              b"fancy_map: {enabled: false}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: grade, labels: [1, 2, 3]}\n"
              b"  - {annotation_type: radio, name: agree, labels: [yes, no], displaying_score: true}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    assert found.ignored == ["port", "user_config"]
    assert [warning.split(":")[0] for warning in found.warnings] == [
        "fancy_new_feature", "corpus_map", "user_config.users", "scheme 'agree'", "scheme 'agree'",
        "scheme 'agree'", "num_annotators_per_item", "training", "gold_standards", "attention_checks"]
    assert "there is no practice round before the work" in found.warnings[7]
    # A block Potato runs only when enabled (a map of the corpus, drawn by an embedding model) is named when it is.
    assert "the map of the documents (embedded, clustered and drawn in 2-D) is not drawn" in found.warnings[1]
    # Potato 2.12.1 refuses a label YAML read as a boolean; here it is kept as its text, and the report says so.
    assert found.warnings[4] == ("scheme 'agree': the label 'True' was read by YAML as a boolean and is kept as that "
                                 "text; Potato 2.12.1 refuses the config for it: quote it (labels: [\"Yes\", \"No\"]) "
                                 "to keep the word written")
    assert "not a key this importer knows" in found.warnings[0]
    assert "no items_file: no known-answer items are mixed in" in found.warnings[-1]
    assert found.design.hits.assignments_per_hit == 3  # -1 (no limit) has no equal: the default, and a warning
    # Labels written as numbers or YAML booleans read as Potato shows them.
    schemes = {scheme.name: [label.name for label in scheme.labels] for scheme in found.design.annotation_schemes}
    assert schemes == {"grade": ["1", "2", "3"], "agree": ["True", "False"]}
    assert "# Not carried over: training: " in found.source()
    assert found.design.qualification is None


def test_the_report_says_ok_with_warnings(tmp_path):
    (tmp_path / "items.jsonl").write_bytes(SENTENCES)
    config = tmp_path / "config.yaml"
    config.write_bytes(b"annotation_task_name: T\ndata_files: [items.jsonl]\ntraining: {enabled: true}\n"
                       b"annotation_schemes:\n  - {annotation_type: radio, name: q, labels: [a, b]}\n")
    result = subprocess.run([sys.executable, "manage.py", "design", "import-potato", str(config), "--check"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"{config}: ok, with 1 warning: 20 items; schemes: q (radio)",
        "  warning: training: not on, or no data_file: there is no practice round before the work"]


def test_labels_are_shown_as_potato_shows_them_and_stored_as_written():
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: radio, name: food, labels: [pizza, not_sure, GPT4-made, "
              b"{name: other_thing, displayed_label: Something else}]}\n"
              b"  - {annotation_type: multiselect, name: raw, humanize_labels: false, labels: [pizza, not_sure]}\n"
              b"  - {annotation_type: span, name: parts, labels: [{name: cause, text: The cause}, effect]}\n"
              b"  - {annotation_type: pairwise, name: which, items_key: pair, labels: [option_a, option_b]}\n"
              b"  - {annotation_type: select, name: place, labels: [new_york, paris]}\n")
    data = b'{"id": 1, "text": "x", "pair": ["a", "b"]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": data}))
    assert found.ok and found.warnings == [], (found.errors, found.warnings)
    shown = {scheme.name: [(label.name, label.description) for label in scheme.labels]
             for scheme in found.design.annotation_schemes}
    assert shown == {
        "food": [("pizza", "Pizza"), ("not_sure", "Not Sure"), ("GPT4-made", "GPT4 Made"),
                 ("other_thing", "Something else")],
        "raw": [("pizza", ""), ("not_sure", "")],  # humanize_labels: false
        "parts": [("cause", "The cause"), ("effect", "Effect")],
        # Potato's pairwise tiles are named by its labels as written, and stored as A and B.
        "which": [("A", "option_a"), ("B", "option_b")],
        "place": [("new_york", ""), ("paris", "")],  # Potato's drop-down shows its labels as written
    }


def test_design_preview_writes_the_first_hits_page_as_one_file(tmp_path):
    """`design preview --html` for a design file and for a Potato config: every widget's controls are in the HTML
    the server renders (not made by a script), and the page's styles and scripts are written into the file."""
    config = _write_every_type(tmp_path / "potato")
    out = tmp_path / "potato.html"
    result = subprocess.run([sys.executable, "manage.py", "design", "preview", str(config), "--potato", "--html",
                             str(out)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{out}: the first HIT, 3 items of 3; schemes: sentiment (radio), ")
    assert "warning: alert_time_each_instance" in result.stderr
    page = out.read_text()
    assert '<link rel="stylesheet"' not in page and "<script src=" not in page and "<style>" in page
    for control in ('type="radio" name="a-1-0" value="positive"', 'type="checkbox"', '<select', 'type="range"',
                    'type="number"', "<textarea", 'class="cf-text design-text span-text"', 'name="a-1-14-best"',
                    'aria-keyshortcuts="0"'):  # ... the pairwise tie on Potato's key
        assert control in page, control
    items = tmp_path / "items.jsonl"
    items.write_text('{"sentenceID": "s1", "sentence": "Had it rained, we would have stayed in."}\n')
    out = tmp_path / "semeval.html"
    result = subprocess.run([sys.executable, "manage.py", "design", "preview", "designs/semeval-subtask1.yaml",
                             "--items", str(items), "--html", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert 'name="a-1-0" value="1"' in out.read_text() and "Had it rained" in out.read_text()
    missing = subprocess.run([sys.executable, "manage.py", "design", "preview", "designs/semeval-subtask1.yaml",
                              "--html", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 1 and "needs its items: add --items FILE" in missing.stderr


def test_no_key_does_two_things_on_one_item():
    """Potato's span-required-labeling has two numbered span schemes: here the second gets the q row, not 1 and 2
    again. Keys a scheme sets itself (key_value, Potato's pairwise 1/2/0) are taken first; j and k stay the page's."""
    from designs.task_type import distinct_keys

    assert distinct_keys([{"1": "animal", "2": "person"}, {"1": "Warrior", "2": "Mage", "3": "Rogue"}]) == [
        {"1": "animal", "2": "person"}, {"q": "Warrior", "w": "Mage", "e": "Rogue"}]
    assert distinct_keys([{"1": "low", "2": "high"}, {"1": "A", "2": "B", "0": "tie"}, {"j": "joy", "y": "yes"}]) == [
        {"4": "low", "5": "high"}, {"1": "A", "2": "B", "0": "tie"}, {"3": "joy", "y": "yes"}]
    found = import_config(b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
                          b"  - {annotation_type: span, name: who, labels: [animal, person], "
                          b"sequential_key_binding: true}\n"
                          b"  - {annotation_type: span, name: class, labels: [Warrior, Mage], "
                          b"sequential_key_binding: true}\n",
                          name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    from designs.schemes import SCHEME_TYPES

    schemes = found.design.annotation_schemes
    assert distinct_keys([SCHEME_TYPES.of(scheme).keys(scheme) for scheme in schemes]) == [
        {"1": "animal", "2": "person"}, {"q": "Warrior", "w": "Mage"}]


def test_items_keep_the_files_order_when_the_design_says_so():
    from designs.services import first_hit
    from hits.services import pack

    found = import_config(b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
                          b"  - {annotation_type: radio, name: q, labels: [a, b]}\n",
                          name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.design.hits.order == "file"
    assert [spec.key for spec in first_hit(found.design, found.records)] == [f"record:s{n}" for n in range(10)]
    shuffled = load_text("title: T\nannotation_schemes:\n  - {annotation_type: radio, name: q, labels: [a, b]}\n")
    assert [spec.key for spec in first_hit(shuffled, found.records)] != [f"record:s{n}" for n in range(10)]
    # Known-answer checks go to seeded places among the items, which keep their order.
    _, hits = pack(list(range(8)), ["g1", "g2"], items_per_hit=4, gold_rate=0.25, seed=3, shuffle=False)
    assert [[entry for entry in hit if entry not in ("g1", "g2")] for hit in hits] == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert all(sum(entry in ("g1", "g2") for entry in hit) == 1 for hit in hits)


def test_each_type_writes_its_answer_as_potatos_export_does():
    """The inputs Potato's forms name (designs/schemes' potato_answer), for the types the side-by-side run does not
    click: one input of the type's own name, pairwise's selection, best-worst's letters, a free response."""
    from designs.schemes import SCHEME_TYPES
    from designs.schemes.base import AnswerProblem, Fields, Record

    design = load_text("""title: Every answer
annotation_schemes:
  - {annotation_type: radio, name: stance, labels: [yes, no], has_free_response: true}
  - {annotation_type: select, name: country, labels: [France, Peru]}
  - {annotation_type: slider, name: heat, min_value: 0, max_value: 10, step: 0.5}
  - {annotation_type: number, name: count}
  - {annotation_type: pairwise, name: better, labels: [A, B], allow_tie: true, tie_value: tie}
  - {annotation_type: pairwise, name: how_much, mode: scale, items_key: pair}
  - {annotation_type: bws, name: bw, tuple_size: 4, items_key: set}
  - {annotation_type: multirate, name: rate, options: [clarity, tone], labels: ['1', '2', '3']}
  - {annotation_type: text, name: notes, labels: [pros, cons]}
  - {annotation_type: multiselect, name: topics, labels: [food, work], has_free_response: true}
""", name="every.yaml")
    found = Record(id="i1", text="", fields={"set": ["w", "x", "y", "z"], "pair": ["p", "q"]})
    answers = {"stance": "other: maybe", "country": "Peru", "heat": 2.5, "count": 3.0, "better": "tie",
               "how_much": -2, "bw": {"best": "y", "worst": "w"}, "rate": {"clarity": "3", "tone": "1"},
               "notes": {"pros": "short"}, "topics": ["food", "other: snacks"]}
    written = {scheme.name: SCHEME_TYPES.of(scheme).potato_answer(scheme, answers[scheme.name], found)["labels"]
               for scheme in design.annotation_schemes}
    assert written == {"stance": {"free_response": "maybe"}, "country": {"select-one": "Peru"},
                       "heat": {"slider": "2.5"}, "count": {"number": "3"}, "better": {"selection": "tie"},
                       "how_much": {"scale_value": "-2"}, "bw": {"best": "C", "worst": "A"},
                       "rate": {"clarity": "3", "tone": "1"}, "notes": {"pros": "short"},
                       "topics": {"food": "food", "free_response": "snacks"}}
    # The Other box of a multiselect, as Potato's check-box-with-free-response has it: ticked with what it is.
    topics = design.scheme("topics")
    raw = {"a-1-9-1": "1", "a-1-9-other": "1", "a-1-9-free": " snacks "}
    assert SCHEME_TYPES.of(topics).read(topics, Fields(raw, "a-1-9"), found) == ["food", "other: snacks"]
    with pytest.raises(AnswerProblem, match="say what the Other is"):
        SCHEME_TYPES.of(topics).read(topics, Fields({"a-1-9-other": "1"}, "a-1-9"), found)


def test_gold_standards_and_attention_checks_are_known_answer_items_mixed_into_every_hit():
    """Potato's gold_standards and attention_checks items files ({id, text, gold_label | expected_answer}) become
    known-answer items, at the share of each HIT Potato inserts them (one every `frequency` items)."""
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\n"
              b"gold_standards: {enabled: true, items_file: gold.jsonl, frequency: 5}\n"
              b"attention_checks: {enabled: true, items_file: checks.json, frequency: 10}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: grade, labels: [low, high]}\n")
    gold = (b'{"id": "g1", "text": "A clear case.", "gold_label": {"grade": "high"}, "explanation": "clear"}\n'
            b'{"id": "g2", "text": "Another one.", "gold_label": {"grade": "low"}}\n')
    checks = b'[{"id": "a1", "text": "Pick low here.", "expected_answer": {"grade": "low"}}]'
    found = import_config(config, name="c.yaml", folder=UploadedFolder(
        {"items.jsonl": SENTENCES, "gold.jsonl": gold, "checks.json": checks}))
    assert found.ok, found.errors
    known = {record.id: record.gold for record in found.records if record.gold is not None}
    assert known == {"g1": {"grade": "high"}, "g2": {"grade": "low"}, "a1": {"grade": "low"}}
    assert found.design.hits.gold_rate == 0.3  # one in five and one in ten
    assert any(note.startswith("gold_standards: the items of gold.jsonl are known-answer items, 20%")
               for note in found.notes)

    wrong = gold.replace(b'{"grade": "low"}', b'{"grades": "low"}')
    found = import_config(config, name="c.yaml", folder=UploadedFolder(
        {"items.jsonl": SENTENCES, "gold.jsonl": wrong, "checks.json": checks}))
    assert found.errors == ["gold.jsonl:2: gold_label names 'grades', which is not a scheme of the config (grade)"]


def test_instance_display_fields_are_the_text_and_what_is_shown_with_it():
    """An item without a text field, shown through Potato's instance_display (a dialogue, an agent trace): its text
    is the display's text field and the other fields are shown with it, a dialogue one turn a line; a display that
    is not text is an error at its line."""
    from designs.task_type import _fields

    config = (b"annotation_task_name: Support chats\ndata_files: [chats.jsonl]\nitem_properties: {id_key: id}\n"
              b"instance_display:\n  fields:\n"
              b"    - {key: chat, type: dialogue, label: Conversation}\n"
              b"    - {key: question, type: text, label: Question}\n"
              b"    - {key: trace, type: agent_trace}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: solved, labels: [yes, no]}\n")
    chats = (b'{"id": "c1", "question": "Was it solved?", "chat": [{"speaker": "User", "text": "My order is late."}, '
             b'{"speaker": "Agent", "text": "It ships today."}], '
             b'"trace": [{"role": "tool", "content": "lookup(42)"}]}\n')
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"chats.jsonl": chats}))
    assert found.ok, found.errors
    items = found.design.items
    assert (items.text_key, items.show, items.show_after) == ("question", ["chat"], ["trace"])
    record = found.records[0]
    assert record.text == "Was it solved?"
    # A dialogue's turns each with its speaker and the speaker's colour, as Potato's dialogue display draws them.
    # Each display's label heads its field, the text's too (a caption above it), as on Potato's page.
    assert items.titles == {"chat": "Conversation", "question": "Question"}
    assert _fields(record, items.show, items) == [(
        "Conversation", "User: My order is late.\nAgent: It ships today.", [
        {"speaker": "User", "text": "My order is late.", "party": 0},
        {"speaker": "Agent", "text": "It ships today.", "party": 1}], None)]
    assert _fields(record, items.show_after, items) == [("trace", "tool: lookup(42)", [
        {"speaker": "tool", "text": "lookup(42)", "party": 0}], None)]
    assert not any(warning.startswith("instance_display") for warning in found.warnings)

    image = config.replace(b"{key: trace, type: agent_trace}", b"{key: photo, type: image}")
    found = import_config(image, name="c.yaml", folder=UploadedFolder({"chats.jsonl": chats}))
    assert found.errors == ["c.yaml:8: instance_display.fields.2.type: an image display ('photo') cannot be shown "
                            "here: this platform shows text displays (text, html, dialogue, pairwise, document, "
                            "code, spreadsheet, agent_trace, eval_trace, coding_trace, cot_trace, web_agent_trace, "
                            "conversation_tree, multi_agent_discussion)"]


def test_num_annotators_per_item_as_a_mapping_takes_its_default():
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\n"
              b"num_annotators_per_item: {default: 4, overlap_sampling: {rate: 0.2}}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: grade, labels: [low, high]}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    assert found.design.hits.assignments_per_hit == 4
    assert found.warnings == ["num_annotators_per_item: the default count (4) is each item's; its overlap sampling "
                              "and adaptive boosts are not run"]


def test_potato_types_ours_run_as_their_own():
    """Potato's vas, confidence, triage, semantic_differential, hierarchical_multiselect and text_edit import as the
    types that run them, each named in the report with what changes; display logic and requirements carry over."""
    config = b"""annotation_task_name: Many kinds
data_files: [items.jsonl]
annotation_schemes:
  - {annotation_type: triage, name: keep, description: "Keep it?", reject_label: Drop,
     label_requirement: {required: true}}
  - {annotation_type: vas, name: warmth, description: "How warm?", left_label: cold, right_label: warm, precision: 0}
  - {annotation_type: confidence, name: sure, target_schema: keep, scale_points: 4, labels: [guess, a, b, certain]}
  - {annotation_type: semantic_differential, name: feel, pairs: [[cold, warm], [dull, lively]], scale_points: 5}
  - annotation_type: hierarchical_multiselect
    name: topic
    taxonomy: {Animals: {Mammals: [Dog, Cat], Birds: []}, Plants: [Trees]}
    max_selections: 2
    display_logic: {show_when: [{schema: keep, operator: equals, value: accept}]}
  - {annotation_type: text_edit, name: fixed, description: Fix the typos, source_field: text}
  - {annotation_type: text_edit, name: written, description: Write it better}
"""
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    schemes = {scheme.name: scheme for scheme in found.design.annotation_schemes}
    assert [(scheme.annotation_type, scheme.name) for scheme in found.design.annotation_schemes] == [
        ("radio", "keep"), ("slider", "warmth"), ("likert", "sure"), ("multirate", "feel"), ("multiselect", "topic"),
        ("text", "fixed"), ("text", "written")]
    keep = schemes["keep"]
    assert [(label.name, label.key_value, label.description) for label in keep.labels] == [
        ("accept", "1", "Keep"), ("reject", "2", "Drop"), ("skip", "3", "Unsure")]
    assert keep.required
    assert (schemes["warmth"].min_value, schemes["warmth"].max_value, schemes["warmth"].step) == (0, 100, 1)
    assert schemes["warmth"].description == "How warm? (cold – warm)"
    assert (schemes["sure"].size, schemes["sure"].min_label, schemes["sure"].max_label) == (4, "guess", "certain")
    assert schemes["feel"].options == ["cold – warm", "dull – lively"]
    assert [label.name for label in schemes["feel"].labels] == ["1", "2", "3", "4", "5"]
    assert [label.name for label in schemes["topic"].labels] == [
        "Animals", "Animals › Mammals", "Animals › Mammals › Dog", "Animals › Mammals › Cat", "Animals › Birds",
        "Plants", "Plants › Trees"]
    assert schemes["topic"].max_selected == 2 and schemes["topic"].display_logic.show_when[0].schema_ == "keep"
    assert schemes["fixed"].prefill_key == "text" and schemes["fixed"].textarea
    # Without source_field Potato 2.12.1's box starts empty (seen in Potato itself): so it does here.
    assert schemes["written"].prefill_key is None and schemes["written"].textarea
    assert "scheme 'written': a text to edit, run as a text box that starts empty as in Potato" in " ".join(found.notes)
    assert "scheme 'warmth': a visual analogue scale, run as a slider on steps of 1, its ends (cold – warm) in its " \
           "question" in found.notes


@pytest.mark.django_db
def test_answers_of_types_ours_run_go_out_in_potatos_own_form_for_them(tmp_path):
    """The potato export writes a vas, triage, semantic differential, hierarchical multiselect, text edit,
    extractive answer and error spans as Potato stores them (potato/server_utils/schemas: the range under the
    scheme's name, "decision", "left__right" rows, the ticked nodes' names joined by commas, a JSON record of the
    edit and its distances, of the answer's text and offsets, of the errors and the quality score), not in the form
    of the type that runs them here; a confidence rating's likert form is the same in both."""
    from designs.items import Given
    from designs.services import outside_answers_store
    from projects.services import potato_project_create

    config = b"""annotation_task_name: Potato forms
data_files: [items.jsonl]
annotation_schemes:
  - {annotation_type: triage, name: keep}
  - {annotation_type: vas, name: warmth, precision: 0}
  - {annotation_type: confidence, name: sure, scale_points: 4}
  - {annotation_type: semantic_differential, name: feel, pairs: [[cold, warm], [dull, lively]], scale_points: 5}
  - {annotation_type: hierarchical_multiselect, name: topic, taxonomy: {Animals: {Mammals: [Dog, Cat]}}}
  - {annotation_type: radio, name: plain, labels: [yes, no]}
  - {annotation_type: text_edit, name: fixed, source_field: text}
  - {annotation_type: extractive_qa, name: answer}
  - annotation_type: error_span
    name: errs
    error_types: [{name: Accuracy, subtypes: [Mistranslation]}, {name: Fluency}]
    severities: [{name: Minor, weight: -1}, {name: Major, weight: -5}]
    max_score: 25
"""
    items = "".join(json.dumps({"id": f"s{n}", "text": f"sentence {n}", "question": "Which word?"}) + "\n"
                    for n in range(3)).encode()
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    assert found.design.export.potato_types == {"keep": "triage", "warmth": "vas", "sure": "confidence",
                                                "feel": "semantic_differential", "topic": "hierarchical_multiselect",
                                                "fixed": "text_edit", "answer": "extractive_qa",
                                                "errs": "error_span"}
    assert found.design.export.potato_settings == {"errs": {"severities": {"Minor": -1, "Major": -5},
                                                            "max_score": 25}}
    _, batch = potato_project_create(imported=found)
    answers = {"keep": "reject", "warmth": 73, "sure": 3, "feel": {"cold – warm": "2", "dull – lively": "5"},
               "topic": ["Animals › Mammals", "Animals › Mammals › Cat"], "plain": "no", "fixed": "sentence one",
               "answer": [{"start": 0, "end": 8, "label": "answer", "text": "sentence"}],
               "errs": [{"start": 9, "end": 10, "label": "Accuracy: Mistranslation", "text": "1",
                         "severity": "Major"}]}
    outside_answers_store(batch=batch, given=[Given("s1", "ada", answers)], source="test")
    written = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "out", formats=("potato",))}
    line = json.loads(written["annotations.jsonl"].read_text())
    assert line["instance_id"] == "s1"
    assert line["labels"] == {"keep": {"decision": "reject"}, "warmth": {"warmth": "73"}, "sure": {"3": "3"},
                              "feel": {"cold__warm": "2", "dull__lively": "5"},
                              "topic": {"selected_labels": "Mammals,Cat"}, "plain": {"no": "no"},
                              "fixed": {"fixed": '{"edited_text":"sentence one","original_text":"sentence 1",'
                                                 '"edit_distance_chars":3,"edit_distance_words":1}'},
                              "answer": {"answer": '{"answer_text":"sentence","start":0,"end":8,'
                                                   '"unanswerable":false}'},
                              "errs": {"errs": '{"errors":[{"start":9,"end":10,"text":"1","type":"Accuracy",'
                                               '"subtype":"Mistranslation","severity":"Major"}],"score":20}'}}


def test_ai_support_becomes_the_design_s_model_and_its_key_is_never_kept():
    config = (b"annotation_task_name: T\ndata_files: items.json\nannotation_schemes:\n"
              b"  - {annotation_type: radio, name: q, labels: [a, b]}\n"
              b"ai_support:\n  enabled: true\n  endpoint_type: vllm\n  holdout: {fraction: 0.25, salt: s1}\n"
              b"  ai_config:\n    model: qwen2.5-7b-instruct\n"
              b"    base_url: http://gpu-box:8000/v1\n    api_key: sk-not-for-files\n    temperature: 0.2\n"
              b"    max_tokens: 300\n    include: {all: true}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.json": b'[{"id": 1, "text": "x"}]'}))
    assert found.ok, found.errors
    assert found.design.llm.model_dump() == {"model": "qwen2.5-7b-instruct", "prompt": "", "temperature": 0.2,
                                             "max_tokens": 300, "examples": 0}
    assert "sk-not-for-files" not in found.source()
    assert any(warning.startswith("ai_support.ai_config.api_key: not kept") for warning in found.warnings)
    # Potato's help on the page: the model's answers shown as suggestions, the same share held out.
    assert any("`manage.py design suggest BATCH --holdout 0.25` once it has answered" in note for note in found.notes)
    assert any(warning.startswith("ai_support.ai_config.include: the model's hints") for warning in found.warnings)
    assert any("design ask-model BATCH --url http://gpu-box:8000/v1" in note for note in found.notes)


def test_a_dialogue_is_shown_turn_by_turn_on_a_phone(chromium, live_server, tmp_path, capsys):
    """Potato's dialogue display on our page: each turn its own line with its speaker, every speaker its colour and
    every other turn shaded, and its pairwise display's panes side by side (stacked on a phone), before the question;
    axe clean at 390 px."""
    from hits.services import batch_publish
    from tests.browser import axe_clean, screenshot
    from tests.designs.fixtures import hit_page, potato_project, project_annotator
    from tests.test_accessibility import PHONE

    (tmp_path / "chats.jsonl").write_text(
        '{"id": "c1", "question": "Was it solved?", "chat": [{"speaker": "User", "text": "My order is late."}, '
        '{"speaker": "Agent", "text": "It ships today."}, {"speaker": "User", "text": "Thanks!"}], '
        '"replies": {"left": "Sorry, it ships today.", "right": {"text": "Orders ship in 3 days.", "label": "Bot"}}}\n')
    (tmp_path / "config.yaml").write_text(
        "annotation_task_name: Support chats\ndata_files: [chats.jsonl]\nitem_properties: {id_key: id}\n"
        "instance_display:\n  fields:\n    - {key: chat, type: dialogue, label: Conversation, display_options: "
        "{show_turn_numbers: true, max_height: 300}}\n"
        "    - {key: replies, type: pairwise, label: Replies, display_options: {cell_width: 30%}}\n"
        "    - {key: question, type: text}\n"
        "annotation_schemes:\n  - {annotation_type: radio, name: solved, labels: [yes, no]}\n")
    project = potato_project(tmp_path / "config.yaml", capsys)
    batch_publish(batch=project.batches.get())
    project_annotator(project, "ada")
    context, page = hit_page(chromium, live_server, "ada", PHONE)
    chat = page.get_by_role("group", name="Conversation")  # the display's label, as Potato heads it
    turns = chat.locator(".turn")
    assert turns.all_inner_texts() == ["[1] User: My order is late.", "[2] Agent: It ships today.",
                                       "[3] User: Thanks!"]  # numbered, as show_turn_numbers asks
    colours = [turn.evaluate("node => getComputedStyle(node).borderLeftColor") for turn in turns.all()]
    assert colours[0] == colours[2] != colours[1]  # a speaker keeps their colour
    shaded = [turn.evaluate("node => getComputedStyle(node).backgroundColor") for turn in turns.all()]
    assert shaded[0] == shaded[2] != shaded[1]  # every other turn shaded
    # A pairwise display: the replies side by side (one under the other on a phone), labelled as Potato labels them.
    replies = page.get_by_role("group", name="Replies").locator(".pane")
    assert [" ".join(text.split()) for text in replies.all_inner_texts()] == [
        "A Sorry, it ships today.", "Bot Orders ship in 3 days."]
    first, second = (pane.bounding_box() for pane in replies.all())
    assert second["y"] >= first["y"] + first["height"]  # stacked at 390 px
    axe_clean(page, "potato-dialogue-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    first, second = (pane.bounding_box() for pane in replies.all())
    assert second["x"] > first["x"] + first["width"] - 1 and abs(second["y"] - first["y"]) < 1  # side by side
    row = page.get_by_role("group", name="Replies").locator(".panes").bounding_box()
    assert abs(first["width"] - 0.3 * row["width"]) < 2  # cell_width: 30%, as Potato sizes its cells
    screenshot(page, "potato-dialogue-desktop")
    context.close()


def test_a_rubric_runs_as_a_grid_and_saves_as_potato_does():
    """Potato's rubric_eval: each criterion a row, the scale's points the columns (their labels shown), an Overall row
    with show_overall; the export keeps each criterion's point under its name, as Potato's page names its radios."""
    config = b"""annotation_task_name: Rubric
data_files: [items.jsonl]
annotation_schemes:
  - annotation_type: rubric_eval
    name: quality
    description: Rate the reply.
    scale_points: 3
    scale_labels: [Bad, OK, Good]
    criteria: [{name: helpful, description: "Does it help?"}, {name: correct}]
    show_overall: true
"""
    from designs.schemes import SCHEME_TYPES

    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    scheme = found.design.scheme("quality")
    assert scheme.annotation_type == "multirate" and scheme.options == ["helpful", "correct", "overall"]
    assert [(label.name, label.description) for label in scheme.labels] == [
        ("1", "Bad (1)"), ("2", "OK (2)"), ("3", "Good (3)")]
    assert "scheme 'quality': a rubric, run as a grid: each criterion a row, points 1 to 3 its columns; the " \
           "criteria's descriptions are not shown" in found.notes
    assert found.design.export.potato_types == {"quality": "rubric_eval"}
    written = SCHEME_TYPES.of(scheme).potato_alias_answer("rubric_eval", scheme, {
        "helpful": "3", "correct": "2", "overall": "3"}, None)
    assert written == {"labels": {"helpful": "3", "correct": "2", "overall": "3"}}


SURVEY = b"""annotation_task_name: Survey
data_files: [items.jsonl]
annotation_schemes:
  - {annotation_type: bdm, name: typed, description: "Most you would pay?", max: 20, step: 1, currency: "\xc2\xa3"}
  - {annotation_type: bdm, name: slid, description: "And on a slider?", max: 10, step: 0.5, input: slider}
  - {annotation_type: belief_elicitation, name: rain, description: "Rain tomorrow?", right_label: Surely}
  - {annotation_type: belief_elicitation, name: temp, description: "High?", mode: bins, bins: [cold, mild, hot]}
  - {annotation_type: randomized_response, name: drugs, description: Drugs, question: "Did you take any?",
     randomizer: Flip a coin; heads answer Yes.}
"""


def test_bids_beliefs_and_randomized_responses_each_run_as_the_type_their_settings_ask_for():
    """One Potato type can be two of ours by its settings (a bid typed or slid; a belief as one probability or
    points over ranges); each says what it runs as, and what it does not run (the draw, the scoring rule)."""
    from designs.schemes import SCHEME_TYPES

    found = import_config(SURVEY, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok, found.errors
    kinds = {scheme.name: scheme.annotation_type for scheme in found.design.annotation_schemes}
    assert kinds == {"typed": "number", "slid": "slider", "rain": "slider", "temp": "constant_sum",
                     "drugs": "radio"}
    typed, slid, rain, temp, drugs = found.design.annotation_schemes
    assert (typed.min, typed.max, typed.step) == (0, 20, 1)
    assert typed.instructions == "Your bid: any amount from £0.00 to £20.00."
    assert (slid.min_value, slid.max_value, slid.step, slid.starting_value) == (0, 10, 0.5, 5)
    assert rain.instructions == "Probability (0 to 100%): 0% Certainly not – Surely 100%."
    assert [label.name for label in temp.labels] == ["cold", "mild", "hot"] and temp.total_points == 100
    assert drugs.instructions == "Flip a coin; heads answer Yes.\n\nDid you take any?"
    assert [label.name for label in drugs.labels] == ["Yes", "No"] and drugs.horizontal
    assert "scheme 'typed': a bid (Becker-DeGroot-Marschak), run as a number typed in a box; Potato's draw of " \
           "the price after the study is not run here" in found.notes
    assert found.design.export.potato_types == {"typed": "bdm", "slid": "bdm", "rain": "belief_elicitation",
                                                "temp": "belief_elicitation", "drugs": "randomized_response"}
    written = {scheme.name: SCHEME_TYPES.of(scheme).potato_alias_answer(found.design.export.potato_types[
        scheme.name], scheme, value, None) for scheme, value in (
        (typed, 12.0), (slid, 2.5), (rain, 35), (temp, {"cold": 60, "hot": 40}), (drugs, "No"))}
    assert written == {"typed": {"labels": {"typed": '{"bid":12}'}}, "slid": {"labels": {"slid": '{"bid":2.5}'}},
                       "rain": {"labels": {"rain": '{"report":35}'}},
                       "temp": {"labels": {"temp": '{"bins":[60,0,40]}'}}, "drugs": {"labels": {"No": "No"}}}


@pytest.mark.parametrize(("scheme", "said"), [
    ("{annotation_type: bdm, name: b, min: 0}", "scheme 'b' (bdm): needs max, the largest bid allowed; add it"),
    ("{annotation_type: bdm, name: b, min: 5, max: 2}",
     "scheme 'b' (bdm): min 5, max 2 and step 0.01 must be numbers with 0 <= min < max and 0 < step <= max - min"),
    ("{annotation_type: bdm, name: b, max: 5, input: dial}", "scheme 'b' (bdm): input is 'dial'; write number or "
                                                              "slider"),
    ("{annotation_type: belief_elicitation, name: p, mode: odds}",
     "scheme 'p' (belief_elicitation): mode is 'odds'; write point or bins"),
    ("{annotation_type: belief_elicitation, name: p, mode: bins, bins: [all]}",
     "scheme 'p' (belief_elicitation): mode: bins needs bins, a list of at least two ranges' names; add them"),
    ("{annotation_type: randomized_response, name: r, method: crosswise, question: Q}",
     "scheme 'r' (randomized_response): method crosswise needs nonsensitive_statement, the statement of known "
     "prevalence"),
    ("{annotation_type: randomized_response, name: r, method: unrelated, question: Q}",
     "scheme 'r' (randomized_response): method is 'unrelated'; write forced_response or crosswise"),
])
def test_a_survey_instrument_potato_would_refuse_is_an_error_at_its_line(scheme, said):
    config = f"annotation_task_name: S\ndata_files: [items.jsonl]\nannotation_schemes:\n  - {scheme}\n".encode()
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.errors[0] == f"c.yaml:4: annotation_schemes.0: {said}" and not found.ok


STEPS = (b'{"id": "1", "text": "Book a table.", "steps": ["Search", {"label": "Call the API"}, {"name": "Confirm"}]}\n'
         b'{"id": "2", "text": "Weather?", "steps": ["Look up"]}\n')


def test_a_grid_s_rows_may_be_each_item_s_own_and_an_item_without_them_is_named():
    """Potato's multirate options_from_data: the rows come from the item (texts, or objects by label, else name);
    answers are read against that item's rows; an item without a list is an error at its line, as is a scheme with
    both or neither of options and options_from_data."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields
    from designs.schemes.base import Record

    config = (b"annotation_task_name: Steps\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: multirate, name: rated, options_from_data: steps, labels: [bad, good]}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": STEPS}))
    assert found.ok, found.errors
    scheme = found.design.scheme("rated")
    kind = SCHEME_TYPES.of(scheme)
    first = Record("1", "Book a table.", json.loads(STEPS.splitlines()[0]))
    assert kind.widget_context(scheme, first, "a", {}) == {"rows": ["Search", "Call the API", "Confirm"]}
    assert kind.read(scheme, Fields({"a-1": "good", "a-2": "bad", "a-3": "good"}, "a"), first) == {
        "Search": "good", "Call the API": "bad", "Confirm": "good"}
    with pytest.raises(AnswerProblem, match="rate every row \\('Confirm' is not rated yet\\)"):
        kind.read(scheme, Fields({"a-1": "good", "a-2": "bad"}, "a"), first)
    assert kind.combine(scheme, [{"Search": "good", "Confirm": "bad"}, {"Search": "good", "Confirm": "good"},
                                 {"Search": "bad", "Confirm": "bad"}]) == {"Search": "good", "Confirm": "bad"}
    missing = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": STEPS + b'{"id": "3", '
                                                                           b'"text": "No steps."}\n'}))
    assert missing.errors == ["items.jsonl:3: scheme 'rated': item '3' has no list of rows under 'steps' to rate; "
                              "every item needs it"]
    both = config.replace(b"labels:", b"options: [x], labels:")
    assert import_config(both, name="c.yaml", folder=UploadedFolder({"items.jsonl": STEPS})).errors == [
        "c.yaml:4: annotation_schemes.0: give the rows as options, or as an item field (options_from_data), one "
        "of them"]


def test_a_label_the_item_does_not_show_is_refused_and_an_item_showing_none_is_named():
    """dynamic_options: an answer naming a label its item leaves out is refused (a crafted form, or a model), and an
    item whose list names none of the scheme's labels could not be answered: an error at its line."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields
    from designs.schemes.base import Record

    items = (b'{"id": "1", "text": "Capital of France?", "visible_labels": ["Paris", "Lyon"]}\n'
             b'{"id": "2", "text": "Capital of Spain?"}\n')
    config = (b"annotation_task_name: Q\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: radio, name: answer, labels: [Paris, Lyon, Madrid], dynamic_options: true}\n"
              b"  - {annotation_type: multiselect, name: also, labels: [Paris, Lyon, Madrid], dynamic_options: true}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    radio, boxes = found.design.annotation_schemes
    first, second = (Record(str(number), "", json.loads(line)) for number, line in enumerate(items.splitlines(), 1))
    assert SCHEME_TYPES.of(radio).read(radio, Fields({"a": "Lyon"}, "a"), first) == "Lyon"
    with pytest.raises(AnswerProblem, match="'Madrid' is not one of the labels this item shows \\(Paris, Lyon\\)"):
        SCHEME_TYPES.of(radio).read(radio, Fields({"a": "Madrid"}, "a"), first)
    assert SCHEME_TYPES.of(radio).read(radio, Fields({"a": "Madrid"}, "a"), second) == "Madrid"  # no list: all
    with pytest.raises(AnswerProblem, match="'Madrid' is not one of the labels this item shows \\(Paris, Lyon\\)"):
        SCHEME_TYPES.of(boxes).read(boxes, Fields({"a-1": "1", "a-3": "1"}, "a"), first)
    none = items.replace(b'["Paris", "Lyon"]', b'["Rome"]')
    assert import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": none})).errors == [
        "items.jsonl:1: scheme 'answer': item '1' lists none of the scheme's labels to show under 'visible_labels'; "
        "every item needs it"]


def test_a_process_reward_runs_as_a_grid_of_the_item_s_steps():
    """Potato's process_reward per_step with allow_neutral and its own reward_labels: Correct, Neutral and Wrong
    columns (1, 0, -1), rows the steps by step_text_key (else text, content, …, else the step as JSON), numbered so
    two steps with one text stay two; the AI pre-labelling is named as not run; a mode Potato lacks is an error."""
    from designs.schemes import SCHEME_TYPES

    items = (b'{"id": "1", "text": "2 + 2?", "trace": [{"thought": "Add them"}, {"say": "4"}, '
             b'{"thought": "Add them"}]}\n')
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: process_reward, name: prm, description: Rate, steps_key: trace, mode: per_step,"
              b" step_text_key: thought, allow_neutral: true, reward_labels: {incorrect: Flawed}, ai_prelabel: true}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("prm")
    kind = SCHEME_TYPES.of(scheme)
    assert [(label.name, label.description) for label in scheme.labels] == [
        ("1", "✓ Correct"), ("0", "○ Neutral"), ("-1", "✗ Flawed")]
    record = Record("1", "2 + 2?", json.loads(items))
    assert kind.widget_context(scheme, record, "a", {})["rows"] == [
        "Step 1: Add them", 'Step 2: {"say": "4"}', "Step 3: Add them"]
    assert "scheme 'prm': a process reward (per_step), run as a grid: each step of the item's trace a row, " \
           "Correct/Neutral/Flawed its columns; not run: ai_prelabel" in found.notes
    value = kind.read(scheme, Fields({"a-1": "1", "a-2": "0", "a-3": "-1"}, "a"), record)
    stored = json.loads(kind.potato_alias_answer("process_reward", scheme, value, record)["labels"]["prm"])
    assert stored["mode"] == "per_step" and [step["reward"] for step in stored["steps"]] == [1, 0, -1]
    wrong = config.replace(b"mode: per_step", b"mode: best_of_n")
    assert import_config(wrong, name="c.yaml", folder=UploadedFolder({"items.jsonl": items})).errors[0] == (
        "c.yaml:4: annotation_schemes.0: scheme 'prm' (process_reward): mode is 'best_of_n'; write first_error or "
        "per_step")


def test_a_price_list_runs_as_potato_words_and_keeps_it():
    """Potato's price_list: the decisions of a preset worded as Potato words them (a scale and a currency), rows
    written out by text or by what they pay; an answer is every decision's A or B (one missing is named), agreed
    per decision, told to a model row by row, and written as Potato's JSON with its switches."""
    from designs.llm import messages
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    items = b'{"id": "1", "text": "Choose"}\n'
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: price_list, name: risk, description: Pick, preset: holt_laury, scale: 10,"
              b" currency: '\xc2\xa3', single_switch: true}\n"
              b"  - {annotation_type: price_list, name: bets, description: Bet, rows: [{a: Sure, b_pays: [[0.5, 3],"
              b" [0.5, 0]], b_after: in a week}, {a_pays: 1.5, b: Nothing}]}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    risk, bets = found.design.scheme("risk"), found.design.scheme("bets")
    kind = SCHEME_TYPES.of(risk)
    record = Record("1", "Choose", {})
    rows = kind.widget_context(risk, record, "a", {})["decisions"]
    assert [(side, text) for side, text, _ in rows[0]["sides"]] == [
        ("A", "10% chance of £20.00, 90% chance of £16.00"), ("B", "10% chance of £38.50, 90% chance of £1.00")]
    assert [text for _, text, _ in rows[9]["sides"]] == ["£20.00 for sure", "£38.50 for sure"]
    assert [[text for _, text, _ in row["sides"]] for row in kind.widget_context(bets, record, "b", {})[
        "decisions"]] == [["Sure", "50% chance of $3.00, 50% chance of $0.00"], ["$1.50 for sure", "Nothing"]]
    assert kind.scripts(risk) == ["designs/price_list.js", "designs/cascade.js"]
    assert kind.scripts(bets) == ["designs/price_list.js"]
    value = kind.read(risk, Fields({f"a-{row}": "A" if row < 4 else "B" for row in range(1, 11)}, "a"), record)
    assert value == ["A"] * 3 + ["B"] * 7
    with pytest.raises(AnswerProblem, match="choose A or B in decision 2"):
        kind.read(bets, Fields({"b-1": "A"}, "b"), record)
    assert kind.read(bets, Fields({}, "b"), record) is None
    assert kind.units(bets, ["A", "B"]) == {1: "A", 2: "B"}
    assert kind.combine(bets, [["A", "B"], ["A", "A"], ["B", "A"]]) == ["A", "A"]
    assert json.loads(kind.potato_answer(bets, ["B", "A"], record)["labels"]["bets"]) == {
        "choices": ["B", "A"], "switches": 1, "multiple_switching": False}
    assert kind.potato_answer(risk, ["A", "B", "A", "B"] + ["B"] * 6, record)["labels"]["risk"] == (
        '{"choices":["A","B","A","B","B","B","B","B","B","B"],"switches":3,"multiple_switching":true}')
    asked = messages(found.design, record)[-1]["content"]
    assert "- bets: Bet Decisions (answer A or B for each, in order): 1. A: Sure or B: 50% chance of $3.00, 50% " \
           "chance of $0.00; 2. A: $1.50 for sure or B: Nothing." in asked


@pytest.mark.parametrize(("scheme", "said"), [
    (b"preset: holt_laury, rows: [{a: x, b: y}, {a: x, b: y}]", "give the decisions as rows, or as a preset"),
    (b"rows: [{a: x, b: y}, {a: x, b: y}], scale: 2", "scale applies to presets only"),
    (b"preset: time_preference, amounts_later: [1, 2]", "preset time_preference needs amount_now and amounts_later"),
    (b"preset: holt_laury, delay_label: soon", "delay_label apply to preset: time_preference only"),
    (b"rows: [{a: x, b: y}, {a: x}]", "option B needs `b` (its text) or `b_pays`"),
    (b"rows: [{a: x, b: y}, {a: x, b_pays: [[0.5, 3], [0.2, 0]]}]", "b_pays: the probabilities must each be above 0"),
    (b"rows: [{a: x, b: y}, {a: x, b: y, c: z}]", "c"),
    (b"rows: [{a: x, b: y}]", "rows"),
    (b"preset: holt_laury, option_labels: [Only]", "option_labels"),
])
def test_a_price_list_potato_would_refuse_is_refused_at_its_line(scheme, said):
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: price_list, name: risk, " + scheme + b"}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "1", "text": "x"}\n'}))
    assert not found.ok
    assert found.errors[0].startswith("c.yaml:4: annotation_schemes.0") and said in found.errors[0], found.errors


def test_a_conjoint_choice_shows_each_item_s_profiles_and_keeps_the_card_chosen():
    """Potato's conjoint with each item's own profiles: under the scheme's attributes when it names them, a level
    missing shown as "—", profiles past profiles_per_set cut with a notice saying so; an answer is a card shown or
    none (a card not shown is refused); a model is told the item's profiles; an item without profiles is an error
    at its line, and a scheme with neither attributes nor profiles_field is refused."""
    from designs.llm import messages
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    items = (b'{"id": "1", "text": "Pick", "p": [{"Price": 5, "Size": "S"}, {"Size": "M"}, {"Price": 9}]}\n'
             b'{"id": "2", "text": "Pick", "p": [{"Price": 1}, {"Price": 2}]}\n')
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: conjoint, name: pick, description: Which one, profiles_per_set: 2,"
              b" profiles_field: p, attributes: [{name: Size, levels: [S, M]}, {name: Price, levels: [1, 5]}]}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("pick")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "Pick", json.loads(items.splitlines()[0]))
    shown = kind.widget_context(scheme, record, "a", {})
    assert [card["rows"] for card in shown["cards"]] == [[("Size", "S"), ("Price", "5")], [("Size", "M"),
                                                                                          ("Price", "—")]]
    assert (shown["cut"], shown["total"]) == (1, 3)
    assert kind.read(scheme, Fields({"a": "2"}, "a"), record) == "2"
    assert kind.read(scheme, Fields({"a": "none"}, "a"), record) == "none"
    with pytest.raises(AnswerProblem, match="'3' is not one of the choices"):
        kind.read(scheme, Fields({"a": "3"}, "a"), record)
    assert kind.potato_answer(scheme, "none", record) == {"labels": {"pick": "none"}}
    assert "Profiles: 1: Size S, Price 5; 2: Size M, Price —. Answer the profile's number, or none." in messages(
        found.design, record)[-1]["content"]
    lacking = items.replace(b'"p": [{"Price": 1}, {"Price": 2}]', b'"q": []')
    without = config.replace(b", attributes: [{name: Size, levels: [S, M]}, {name: Price, levels: [1, 5]}]", b"")
    assert import_config(without, name="c.yaml", folder=UploadedFolder({"items.jsonl": lacking})).errors == [
        "items.jsonl:2: scheme 'pick': item '2' has no profiles under 'p' to choose from (a list of {attribute: "
        "level}); every item needs it"]
    neither = without.replace(b", profiles_field: p", b"")
    assert "give the profiles' attributes, or an item field" in import_config(
        neither, name="c.yaml", folder=UploadedFolder({"items.jsonl": items})).errors[0]


def test_a_free_list_keeps_the_items_in_order_with_when_each_came():
    """Potato's free_list: the list read as the page keeps it (spaces collapsed), too few (a required list) or too
    many items, a duplicate (case and spaces aside) and an unreadable list refused saying what to do, a list
    without its times (a model's) kept with none; a timed list short of min_items taken once its time is up;
    written as Potato's JSON."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: free_list, name: fruit, description: Fruit, min_items: 2, max_items: 3,"
              b" time_limit_s: 60, label_requirement: {required: true}}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "1", "text": "x"}\n'}))
    assert found.ok, found.errors
    assert found.warnings == []
    scheme = found.design.scheme("fruit")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "x", {})

    def read(value):
        return kind.read(scheme, Fields({"a": json.dumps(value)}, "a"), record)

    assert read({"items": [" wild  plum ", "fig"], "timings_ms": [800, 1900.4], "elapsed_ms": 2000}) == {
        "items": ["wild plum", "fig"], "timings_ms": [800, 1900], "elapsed_ms": 2000, "time_up": False}
    assert read({"items": ["fig", "kiwi"]}) == {"items": ["fig", "kiwi"], "timings_ms": [None, None],
                                                  "elapsed_ms": 0, "time_up": False}
    for value, said in (({"items": ["fig"]}, "list at least 2 items \\(now 1\\)"),
                        ({"items": ["a", "b", "c", "d"]}, "list at most 3 items \\(now 4\\)"),
                        ({"items": ["Fig", "fig "]}, "'fig' is on the list twice; delete one"),
                        ({"items": [3]}, "the list could not be read; reload the page")):
        with pytest.raises(AnswerProblem, match=said):
            read(value)
    # Short of min_items holds only a required list, as Potato's page holds only a required scheme to it.
    optional = scheme.model_copy(update={"label_requirement": None})
    assert kind.read(optional, Fields({"a": json.dumps({"items": ["fig"]})}, "a"), record)["items"] == ["fig"]
    # Timed: a list short of min_items is taken when its time is up, not before.
    assert read({"items": ["fig"], "time_up": True})["time_up"] is True
    assert read({"items": [], "time_up": True}) == {"items": [], "timings_ms": [], "elapsed_ms": 0, "time_up": True}
    assert kind.potato_answer(scheme, {"items": ["pêche", "fig"], "timings_ms": [5, 9], "elapsed_ms": 10},
                              record) == {"labels": {"fruit": '{"items":["pêche","fig"],"timings_ms":[5,9],'
                                                              '"elapsed_ms":10,"time_up":false,"started":true}'}}
    assert json.loads(kind.potato_answer(scheme, read({"items": ["fig"], "time_up": True}), record)["labels"][
        "fruit"])["time_up"] is True


def test_an_edit_is_measured_as_potato_s_page_measures_it():
    """Characters as Potato's script counts them (UTF-16 units: an emoji is two), words split at any run of
    spaces, the ends trimmed."""
    from designs.schemes.base import edit_distances

    assert edit_distances("sentence 1", "sentence one") == {"edit_distance_chars": 3, "edit_distance_words": 1}
    assert edit_distances("ok", "ok 😀") == {"edit_distance_chars": 3, "edit_distance_words": 1}
    assert edit_distances("  one two ", "one\n two") == {"edit_distance_chars": 4, "edit_distance_words": 0}


@pytest.mark.parametrize(("settings", "said"), [
    (b"mode: closed", "a closed card sort needs its groups; name them under groups, or write mode: open for groups "
                      "the annotator makes"),
    (b"groups: [A, A]", "groups must be different texts, none empty"),
    (b"mode: pile", "annotation_schemes.0.mode: is 'pile'; input should be 'closed' or 'open'"),
])
def test_a_card_sort_that_cannot_run_is_refused_saying_how(settings, said):
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: card_sort, name: sort, " + settings + b"}\n")
    items = b'{"id": "1", "items": ["x"]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert not found.ok
    assert said in " ".join(found.errors)


def test_a_card_sort_is_read_checked_and_combined_card_by_card():
    """A sort read as the page keeps it (Potato's JSON), each group with its cards in the order they went in, a
    card left unsorted in none, the scheme's groups first (one left out is empty); a card twice, a card not the
    item's, a closed sort's group not the scheme's refused saying what to do; nothing sorted is no answer; combined
    card by card."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: card_sort, name: sort, groups: [Keep, Drop], items_field: cards}\n")
    items = b'{"id": "1", "text": "x", "cards": ["pear", "plum", "fig"]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("sort")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "x", {"cards": ["pear", "plum", "fig"]})

    def read(value, which=scheme):
        return kind.read(which, Fields({"a": value if isinstance(value, str) else json.dumps(value)}, "a"), record)

    assert read({"Keep": ["plum", "pear"], "Drop": []}) == [{"group": "Keep", "cards": ["plum", "pear"]},
                                                          {"group": "Drop", "cards": []}]
    assert read("") is None and read({}) is None
    assert read({"Drop": ["fig"]}) == [{"group": "Keep", "cards": []}, {"group": "Drop", "cards": ["fig"]}]
    for value, said in (({"Keep": ["pear"], "Drop": ["pear"]}, "'pear' is in two groups; each card goes in one"),
                        ({"Keep": ["kiwi"], "Drop": []}, "'kiwi' is not one of the item's cards"),
                        ({"Keep": [], "Drop": [], "Maybe": []}, "only the groups Keep, Drop may be used"),
                        ("{nope", "the sort could not be read; reload the page")):
        with pytest.raises(AnswerProblem, match=said):
            read(value)
    open_sort = scheme.model_copy(update={"mode": "open"})
    assert read({"Keep": ["fig"], "Drop": [], "Sweet": ["plum"]}, open_sort)[2] == {"group": "Sweet",
                                                                                   "cards": ["plum"]}
    with pytest.raises(AnswerProblem, match="each group needs a name of its own"):
        read({"Keep": [], "Drop": [], " ": ["plum"]}, open_sort)
    answers = [read({"Keep": ["pear", "fig"], "Drop": ["plum"]}), read({"Keep": ["pear"], "Drop": ["plum", "fig"]}),
               read({"Keep": ["fig"], "Drop": ["plum"]})]
    assert kind.units(scheme, answers[0]) == {"pear": "Keep", "fig": "Keep", "plum": "Drop"}
    assert kind.combine(scheme, answers) == [{"group": "Keep", "cards": ["pear", "fig"]},
                                             {"group": "Drop", "cards": ["plum"]}]
    assert kind.form_fields(scheme, answers[1]) == {"": '{"Keep": ["pear"], "Drop": ["plum", "fig"]}'}


def test_a_card_sort_s_allow_multiple_and_allow_empty_groups_are_said_as_potato_s_page_runs_them():
    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: card_sort, name: sort, mode: open, groups: [A, 2], allow_multiple: true,"
              b" allow_empty_groups: false}\n")
    items = b'{"id": "1", "text": "x", "items": ["pear", "plum"]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    assert found.warnings == []  # read, not dropped
    notes = " ".join(found.notes)
    assert "'sort': allow_multiple: each card still goes in one group, as on Potato 2.12.1's page" in notes
    assert "'sort': allow_empty_groups: not checked, as Potato 2.12.1's page does not check it" in notes
    assert found.raw["annotation_schemes"][0]["groups"] == ["A", "2"]  # a group named by a number, as its text


def test_a_display_option_not_run_here_is_named_never_an_ok():
    """A dialogue's display options: its turn numbers, the speaker and text keys ours read, its height, reply
    threading, timestamps and metadata (the design's items.dialogues) and its per-turn ratings (a turn_rating
    scheme, asked first) run; the rest (turns left unshaded) are a named warning."""
    config = (b"annotation_task_name: Chats\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"instance_display:\n  fields:\n"
              b"    - {key: chat, type: dialogue, display_options: {show_turn_numbers: true, speaker_key: role, "
              b"max_height: 300, indent_replies: true, show_timestamps: true, turn_meta_fields: [score], "
              b"alternating_shading: false, "
              b"per_turn_ratings: {speakers: [Bot], scheme: {size: 5}}}}\n"
              b"    - {key: pair, type: pairwise, display_options: {cell_width: 40%}}\n"
              b"    - {key: q, type: text}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: ok, labels: [fine, bad]}\n")
    items = b'{"id": "1", "q": "Fine?", "chat": [{"role": "User", "text": "Hi"}, {"role": "Bot", "text": "Hey"}]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    assert found.design.items.numbered == ["chat"]
    assert found.design.items.pane_width == {"pair": "40%"}
    view = found.design.items.dialogues["chat"]
    assert (view.max_height, view.indent_replies, view.show_reply_lines, view.timestamps) == (300, True, True,
                                                                                              "relative")
    assert [warning for warning in found.warnings if warning.startswith("instance_display")] == [
        "instance_display.fields.0 ('chat'): display_options alternating_shading not run here: the dialogue is shown "
        "without it"]
    assert (view.meta_fields, view.meta_key) == (["score"], "meta")
    rating, ok = found.design.annotation_schemes
    assert (rating.name, rating.turns_field, rating.speakers, rating.size, ok.name) == (
        "per_turn_ratings", "chat", ["Bot"], 5, "ok")


@pytest.mark.parametrize(("ratings", "said"), [
    (b"{scheme: {size: 5}}", "names no speakers whose turns are rated; write {speakers: [Bot], scheme: {size: 5}}"),
    (b"{speakers: [Bot], scheme: {size: 20}}", "'per_turn_ratings': size is 20; give a whole number of points from "
                                               "2 to 10"),
    (b"{speakers: [Bot], schemes: oops}", "schemes is not a list of {schema_name, scheme}"),
])
def test_turn_ratings_potato_would_not_draw_are_refused_at_their_line(ratings, said):
    config = (b"annotation_task_name: Chats\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"instance_display:\n  fields:\n"
              b"    - {key: chat, type: dialogue, display_options: {per_turn_ratings: " + ratings + b"}}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: ok, labels: [fine, bad]}\n")
    items = b'{"id": "1", "q": "Fine?", "chat": [{"role": "User", "text": "Hi"}, {"role": "Bot", "text": "Hey"}]}\n'
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.errors == [f"c.yaml:6: instance_display.fields.0.display_options.per_turn_ratings: {said}"]


def test_a_turn_rating_reads_each_rated_turn_and_writes_potato_s_form():
    """Only the rated speakers' turns, numbered from 0 among all the turns as Potato numbers them; any left; a point
    off the scale refused; agreement per turn; told to a model turn by turn; Potato's JSON under _data."""
    from designs.llm import messages
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Chats\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"instance_display:\n  fields:\n"
              b"    - {key: chat, type: dialogue, display_options: {per_turn_ratings: {speakers: [Bot], "
              b"scheme: {size: 3, labels: [Bad, Good]}}}}\n"
              b"annotation_schemes:\n  - {annotation_type: radio, name: ok, labels: [fine, bad]}\n")
    items = (b'{"id": "1", "q": "Fine?", "chat": [{"role": "Bot", "text": "Hi"}, {"role": "User", "text": "Yo"}, '
             b'{"role": "Bot", "text": "Hey"}]}\n')
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("per_turn_ratings")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "Fine?", json.loads(items))
    assert [turn["place"] for turn in kind.widget_context(scheme, record, "a", {})["turns"]] == [0, 2]
    assert kind.read(scheme, Fields({"a-2": "3"}, "a"), record) == {"2": 3}
    assert kind.read(scheme, Fields({"a-1": "3"}, "a"), record) is None  # the user's turn is not rated
    with pytest.raises(AnswerProblem, match="turn 1 \\('Bot: Hi'\\): give a point from 1 to 3"):
        kind.read(scheme, Fields({"a-0": "4"}, "a"), record)
    assert kind.combine(scheme, [{"0": 1, "2": 3}, {"2": 2}, {"2": 3}]) == {"0": 1, "2": 3}
    assert kind.potato_answer(scheme, {"2": 3, "0": 1}, record) == {"labels": {"_data": '{"0":1,"2":3}'}}
    assert "Rate each of these turns 1 to 3 (1 Bad, 3 Good), as {turn: point}, any you can: 0: Bot: Hi; 2: Bot: " \
           "Hey." in messages(found.design, record)[-1]["content"]


def test_discussion_acts_read_each_turn_s_act_and_the_turn_it_refers_to():
    """A turn tagged or left; an act that refers needs its turn, another turn of the item; a reference left by an act
    that does not refer is dropped; Potato's HTML hint is text; agreement and the combined tags per turn; told to a
    model turn by turn; Potato's JSON with each turn's agent."""
    from designs.llm import messages
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Talks\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: consensus_tracking, name: acts, description: Acts, "
              b"hint: 'Tag <em>each</em> turn'}\n"
              b"  - {annotation_type: context_attribution, name: uses, description: Uses, turns_key: conversation}\n")
    items = (b'{"id": "1", "q": "Lunch?", "conversation": [{"speaker": "ann", "text": "Pizza?"}, "Fine by me.", '
             b'{"speaker": "bob", "agent_id": "b-1", "text": "Pizza it is."}]}\n')
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    acts, uses = found.design.scheme("acts"), found.design.scheme("uses")
    assert acts.hint == "Tag each turn" and uses.linked_acts == ["used_context_correctly", "hallucinated_context"]
    kind = SCHEME_TYPES.of(acts)
    record = Record("1", "Lunch?", json.loads(items))
    assert [turn["name"] for turn in kind.widget_context(acts, record, "a", {})["turns"]] == ["#1 ann", "#2", "#3 bob"]
    given = {"a-0": "proposal", "a-1": "agreement", "a-1-ref": "0", "a-2": "decision", "a-2-ref": "1"}
    tags = kind.read(acts, Fields(given, "a"), record)
    assert tags == [{"turn": 0, "act": "proposal"}, {"turn": 1, "act": "agreement", "ref": 0},
                    {"turn": 2, "act": "decision"}]
    sent = {f"a-{part}": text for part, text in kind.form_fields(acts, tags).items()}
    assert kind.read(acts, Fields(sent, "a"), record) == tags
    assert kind.read(acts, Fields({}, "a"), record) is None
    # Half a tag is kept, as Potato keeps it, unless the scheme is required.
    assert kind.read(acts, Fields({"a-1": "agreement"}, "a"), record) == [{"turn": 1, "act": "agreement"}]
    with pytest.raises(AnswerProblem, match="turn #2 \\(agreement\\): choose the turn it refers to"):
        kind.read(acts.model_copy(update={"label_requirement": Requirement(required=True)}),
                  Fields({"a-1": "agreement"}, "a"), record)
    with pytest.raises(AnswerProblem, match="refers to '1', which is not another turn"):
        kind.read(acts, Fields({"a-1": "agreement", "a-1-ref": "1"}, "a"), record)
    with pytest.raises(AnswerProblem, match="'chat' is not one of the acts of turn 1"):
        kind.read(acts, Fields({"a-0": "chat"}, "a"), record)
    assert kind.units(acts, tags) == {0: "proposal", 1: "agreement → 1", 2: "decision"}
    assert kind.combine(acts, [tags, [{"turn": 1, "act": "agreement", "ref": 0}], [{"turn": 2, "act": "decision"}]]) \
        == [{"turn": 1, "act": "agreement", "ref": 0}, {"turn": 2, "act": "decision"}]  # turn 0: one of three
    assert json.loads(kind.potato_answer(acts, tags, record)["labels"]["acts"]) == [
        {"turn": 0, "act": "proposal", "agent_id": "ann"}, {"turn": 1, "act": "agreement", "agent_id": "", "ref": 0},
        {"turn": 2, "act": "decision", "agent_id": "b-1"}]
    told = messages(found.design, record)[-1]["content"]
    assert "(used_context_correctly, hallucinated_context, ignored_context)" in told
    assert "Turns: 0: ann: Pizza?; 1: Fine by me.; 2: bob: Pizza it is." in told
    problem = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "2", "q": "x"}\n'}))
    assert any("item '2' has no turns under 'conversation'" in error for error in problem.errors), problem.errors


def test_a_trajectory_evaluation_reads_each_step_and_scores_the_whole():
    """A step's error fields count only when it is not correct; the score is the most less each wrong step's
    severity, null (score_complete false) while a step is unjudged or a wrong one has no severity; Potato's error
    types written as names or {label, subtypes}; a required one needs every step judged and weighed."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: trajectory_eval, name: steps, max_score: 20, "
              b"error_types: [{label: plan, subtypes: [goal]}, tool]%s}\n")
    items = b'{"id": "1", "q": "Go.", "steps": [{"action": "a"}, {"text": "b", "thought": "t"}, "c"]}\n'
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("steps")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Go.", json.loads(items))
    assert [(step["text"], step["thought"]) for step in kind.widget_context(scheme, record, "a", {})["steps"]] == [
        ("a", ""), ("b", "t"), ("c", "")]
    given = {"a-0": "correct", "a-0-severity": "major", "a-1": "incorrect", "a-1-type": "plan::goal",
             "a-1-severity": "major", "a-1-rationale": "off", "a-2": "partially_correct", "a-2-type": "tool",
             "a-2-severity": "critical"}
    answer = kind.read(scheme, Fields(given, "a"), record)
    assert answer == {"steps": [
        {"step_index": 0, "correctness": "correct"},
        {"step_index": 1, "correctness": "incorrect", "error_type": "plan", "error_subtype": "goal",
         "severity": "major", "rationale": "off"},
        {"step_index": 2, "correctness": "partially_correct", "error_type": "tool", "error_subtype": "",
         "severity": "critical"}], "score": 5, "score_complete": True}
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer).items()}
    assert kind.read(scheme, Fields(sent, "a"), record) == answer
    half = kind.read(scheme, Fields({"a-1": "incorrect"}, "a"), record)
    assert (half["score"], half["score_complete"], half["steps"][0]) == (None, False,
                                                                         {"step_index": 0, "correctness": None})
    assert kind.read(scheme, Fields({}, "a"), record) is None
    with pytest.raises(AnswerProblem, match="'plan' is not one of the error types of step 2"):
        kind.read(scheme, Fields({"a-1": "incorrect", "a-1-type": "plan"}, "a"), record)
    required = import_config(config % b", label_requirement: {required: true}", name="c.yaml",
                             folder=UploadedFolder({"items.jsonl": items})).design.scheme("steps")
    with pytest.raises(AnswerProblem, match="judge step 1, 3"):
        kind.read(required, Fields({"a-1": "incorrect"}, "a"), record)


def test_an_agent_scorecard_reads_each_agent_s_and_the_team_s_points():
    """The agents are the scheme's, then the run's own; a point off the scale is refused; only the cells scored are
    kept; a required one needs every cell; agreement per cell."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: agent_scorecard, name: card, agents: [boss], scale: 3, "
              b"agent_dimensions: [help], team_dimensions: [speed], milestones: [done]%s}\n")
    items = b'{"id": "1", "q": "Go.", "steps": [{"agent": "a1"}, {"role": "a2"}, "x"]}\n'
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("card")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Go.", json.loads(items))
    assert kind.widget_context(scheme, record, "a", {})["agents"] == [(0, "boss"), (1, "a1"), (2, "a2"),
                                                                      (3, "agent 3")]
    answer = kind.read(scheme, Fields({"a-1-0": "3", "a-team-0": "2", "a-m-0": "1"}, "a"), record)
    assert answer == {"agents": {"a1": {"help": 3}}, "team": {"speed": 2}, "milestones": {"done": True}}
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer, record).items()}
    assert kind.read(scheme, Fields(sent, "a"), record) == answer
    assert kind.units(scheme, answer) == {"a1 · help": 3, "team · speed": 2}
    assert kind.read(scheme, Fields({}, "a"), record) is None
    with pytest.raises(AnswerProblem, match="a1, help: give a point from 1 to 3"):
        kind.read(scheme, Fields({"a-1-0": "4"}, "a"), record)
    required = import_config(config % b", label_requirement: {required: true}", name="c.yaml",
                             folder=UploadedFolder({"items.jsonl": items})).design.scheme("card")
    with pytest.raises(AnswerProblem, match="2 of 5 scored"):
        kind.read(required, Fields({"a-1-0": "3", "a-team-0": "2"}, "a"), record)


def test_a_code_review_with_a_comment_opened_and_not_written_is_kept_empty_as_potato_keeps_it():
    """Potato 2.12.1, seen on its page: "+ Add Comment" pressed, nothing written, Next: it keeps
    {"verdict":"","comments":[],"file_ratings":{}}. So here; a review never touched is no answer."""
    from designs.schemes import SCHEME_TYPES

    config = (b"annotation_task_name: P\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: code_review, name: review, description: Review}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "1", "text": "x"}\n'}))
    scheme = found.design.scheme("review")
    kind = SCHEME_TYPES.of(scheme)
    record = Record("1", "x", {})
    empty = kind.read(scheme, Fields({"a-c0-category": "bug", "a-c0-text": "", "a-c0-file": ""}, "a"), record)
    assert empty == {"verdict": "", "comments": [], "file_ratings": {}}
    assert kind.potato_answer(scheme, empty, record) == {
        "labels": {"review": '{"verdict":"","comments":[],"file_ratings":{}}'}}
    assert kind.read(scheme, Fields({}, "a"), record) is None


def test_a_handoff_review_reads_each_handoff_s_issues_and_quality():
    """A handoff wherever the acting agent changes; the issues in the scheme's order, the quality left out when not
    given; a quality off the scale refused; a required one needs every handoff reviewed."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: handoff_review, name: h, flags: [lost, drift], "
              b"quality_scale: 3%s}\n")
    items = b'{"id": "1", "q": "Go.", "steps": [{"agent": "a"}, {"agent": "a"}, {"role": "b"}, "x", {"agent": "a"}]}\n'
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("h")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Go.", json.loads(items))
    assert [(h["from"], h["to"], h["number"]) for h in kind.widget_context(scheme, record, "a", {})["handoffs"]] == [
        ("a", "b", 3), ("b", "agent 4", 4), ("agent 4", "a", 5)]
    answer = kind.read(scheme, Fields({"a-0-flag-1": "1", "a-0-flag-0": "1", "a-2": "3"}, "a"), record)
    assert answer == [{"index": 0, "step": 2, "from": "a", "to": "b", "flags": ["lost", "drift"]},
                      {"index": 2, "step": 4, "from": "agent 4", "to": "a", "flags": [], "quality": 3}]
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer).items()}
    assert kind.read(scheme, Fields(sent, "a"), record) == answer
    assert kind.read(scheme, Fields({}, "a"), record) is None
    with pytest.raises(AnswerProblem, match="give a quality from 1 to 3"):
        kind.read(scheme, Fields({"a-1": "4"}, "a"), record)
    required = import_config(config % b", label_requirement: {required: true}", name="c.yaml",
                             folder=UploadedFolder({"items.jsonl": items})).design.scheme("h")
    with pytest.raises(AnswerProblem, match="2 of 3 handoffs reviewed"):
        kind.read(required, Fields({"a-0": "1", "a-2": "2"}, "a"), record)


def test_emergent_behaviours_read_the_turns_of_each_behaviour():
    """Each behaviour with its turns (in order) and note; one with nothing left out; notes not kept when the scheme
    allows none; told to a model turn by turn."""
    from designs.llm import messages
    from designs.schemes import SCHEME_TYPES

    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: emergent_behavior, name: b, behaviors: [herd, drift]%s}\n")
    items = b'{"id": "1", "q": "Go.", "steps": [{"agent": "a", "content": "yes"}, {"role": "b", "text": "yes"}, "x"]}\n'
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("b")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Go.", json.loads(items))
    assert [(turn["number"], turn["agent"]) for turn in kind.widget_context(scheme, record, "a", {})["turns"]] == [
        (1, "a"), (2, "b"), (3, "agent 3")]
    answer = kind.read(scheme, Fields({"a-0-1": "1", "a-0-0": "1", "a-0-note": "same", "a-1-note": ""}, "a"), record)
    assert answer == {"herd": {"turns": [0, 1], "note": "same"}}
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer).items()}
    assert kind.read(scheme, Fields(sent, "a"), record) == answer
    assert kind.read(scheme, Fields({}, "a"), record) is None
    assert "Turns: 0. a: yes; 1. b: yes; 2. agent 3: x." in messages(found.design, record)[-1]["content"]
    quiet = import_config(config % b", allow_note: false", name="c.yaml",
                          folder=UploadedFolder({"items.jsonl": items})).design.scheme("b")
    assert kind.read(quiet, Fields({"a-1-note": "why"}, "a"), record) is None


def test_a_tool_call_review_reads_each_call_s_verdict_and_notes():
    """The calls are a step's tool_calls (or tool_call) and steps that are calls themselves, numbered across the
    trace; a call with only notes is kept (its verdict ""); a verdict not offered is refused; a required review needs
    every call's verdict; agreement per call."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Calls\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: tool_call_review, name: calls, "
              b"verdict_options: [ok, bad]%s}\n")
    items = (b'{"id": "1", "q": "Do it.", "steps": [{"tool_calls": [{"name": "a", "arguments": {"z": 1, "b": [1]}}, '
             b'{"tool": "b"}]}, "thinking", {"tool_call": {"tool": "c", "input": "x"}}, {"action_type": "tool"}]}\n')
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("calls")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Do it.", json.loads(items))
    context = kind.widget_context(scheme, record, "a", {})
    assert [(call["tool"], call["number"], call["args"]) for call in context["calls"]] == [
        ("a", 1, '{\n  "b": [\n    1\n  ],\n  "z": 1\n}'), ("b", 1, "{}"), ("c", 3, "x"), ("tool", 4, "{}")]
    answer = kind.read(scheme, Fields({"a-0": "ok", "a-2-notes": "why c?", "a-3": "bad"}, "a"), record)
    assert answer == [{"index": 0, "step": 0, "tool": "a", "verdict": "ok", "notes": ""},
                      {"index": 2, "step": 2, "tool": "c", "verdict": "", "notes": "why c?"},
                      {"index": 3, "step": 3, "tool": "tool", "verdict": "bad", "notes": ""}]
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer).items()}
    assert kind.read(scheme, Fields(sent, "a"), record) == answer
    assert kind.units(scheme, answer) == {0: "ok", 3: "bad"}
    assert kind.read(scheme, Fields({}, "a"), record) is None
    with pytest.raises(AnswerProblem, match="'fine' is not one of the verdicts"):
        kind.read(scheme, Fields({"a-0": "fine"}, "a"), record)
    required = import_config(config % b", label_requirement: {required: true}", name="c.yaml",
                             folder=UploadedFolder({"items.jsonl": items})).design.scheme("calls")
    with pytest.raises(AnswerProblem, match="give every tool call a verdict"):
        kind.read(required, Fields({"a-0": "ok"}, "a"), record)


@pytest.mark.parametrize(("kind", "said"), [
    ("emergent_behavior", "items.jsonl:2: scheme 'b': item '2' has no turns under 'steps' to tag"),
    ("failure_attribution", "items.jsonl:2: scheme 'b': item '2' has no run under 'steps' (a list of steps)"),
])
def test_an_agent_trace_that_is_not_a_list_is_named_by_item(kind, said):
    """An item whose steps are a number (not a list, nor missing) is named by its line, as one without steps is."""
    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: q}\n"
              b"annotation_schemes:\n  - {annotation_type: %s, name: b}\n" % kind.encode())
    items = (b'{"id": "1", "q": "Go.", "steps": [{"agent": "a", "content": "yes"}]}\n'
             b'{"id": "2", "q": "Go.", "steps": 5}\n')
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert len(found.errors) == 1 and found.errors[0].startswith(said), found.errors


def test_a_failure_attribution_reads_an_agent_and_a_step_of_the_run():
    """The agents offered are the scheme's, then the run's own (by agent_key, speaker or role); a step is one of the
    run's, from 0; a partial answer is kept unless the scheme is required; agreement on who and when apart."""
    from designs.schemes import SCHEME_TYPES, AnswerProblem

    config = (b"annotation_task_name: Runs\ndata_files: [items.jsonl]\nitem_properties: {id_key: id, text_key: task}\n"
              b"annotation_schemes:\n  - {annotation_type: failure_attribution, name: blame, agents: [boss]%s}\n")
    items = (b'{"id": "1", "task": "Do it.", "steps": [{"agent": "a1", "content": "plan"}, {"role": "a2", "text": '
             b'"act"}, "a bare step"]}\n')
    found = import_config(config % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": items}))
    assert found.ok, found.errors
    scheme = found.design.scheme("blame")
    kind, record = SCHEME_TYPES.of(scheme), Record("1", "Do it.", json.loads(items))
    context = kind.widget_context(scheme, record, "a", {})
    assert context["agents"] == ["boss", "a1", "a2", "step 3"]
    assert [said for _, said in context["steps"]] == ["1. [a1] plan", "2. [a2] act", "3. [step 3] a bare step"]
    assert kind.read(scheme, Fields({"a-agent": "a2", "a-step": "1", "a-reason": "why"}, "a"), record) == {
        "responsible_agent": "a2", "decisive_step": 1, "reason": "why"}
    assert kind.read(scheme, Fields({"a-agent": "a2"}, "a"), record) == {
        "responsible_agent": "a2", "decisive_step": None, "reason": ""}
    assert kind.read(scheme, Fields({}, "a"), record) is None
    with pytest.raises(AnswerProblem, match="'x' is not an agent of this run"):
        kind.read(scheme, Fields({"a-agent": "x"}, "a"), record)
    with pytest.raises(AnswerProblem, match="step '3' is not a step of this run \\(it has 3\\)"):
        kind.read(scheme, Fields({"a-step": "3"}, "a"), record)
    assert kind.units(scheme, {"responsible_agent": "a2", "decisive_step": None, "reason": "x"}) == {"agent": "a2"}
    required = import_config(config % b", label_requirement: {required: true}", name="c.yaml",
                             folder=UploadedFolder({"items.jsonl": items})).design.scheme("blame")
    with pytest.raises(AnswerProblem, match="no decisive step chosen"):
        kind.read(required, Fields({"a-agent": "a2"}, "a"), record)


@pytest.mark.parametrize(("scheme", "said"), [
    (b"acts: [a, b], linked_acts: [c]", "linked_acts 'c' are not among the acts"),
    (b"acts: [a, a]", "acts must be different texts"),
])
def test_discussion_acts_that_cannot_be_asked_are_refused_at_their_line(scheme, said):
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: consensus_tracking, name: acts, " + scheme + b"}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "1", "text": "x"}\n'}))
    assert not found.ok and any(error.startswith("c.yaml:4:") and said in error for error in found.errors), \
        found.errors


@pytest.mark.parametrize(("types", "said"), [
    ("[{description: no name field}]", "error_types.0 has no name; give each error type a name"),
    ("[]", "needs error_types, a list of the kinds of error to mark (each a name, or {name, subtypes})"),
])
def test_an_error_span_without_its_error_types_named_is_refused_saying_which(types, said):
    """As Potato 2.12.1 refuses it (its own test_error_span_schema), named by the error type's place."""
    config = (f"annotation_task_name: E\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              f"  - {{annotation_type: error_span, name: errs, error_types: {types}}}\n").encode()
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.errors[0] == f"c.yaml:4: annotation_schemes.0: scheme 'errs' (error_span): {said}"


def test_potato_s_export_format_key_is_one_of_its_own_server_s():
    """Potato 2.12.1 renamed output_annotation_format to export_annotation_format: either only sets Potato's own
    output files, so both are listed as ignored, not as keys the importer does not know."""
    config = (b"annotation_task_name: E\ndata_files: [items.jsonl]\nexport_annotation_format: [jsonl]\n"
              b"output_annotation_format: csv\nannotation_schemes:\n"
              b"  - {annotation_type: radio, name: r, labels: [a, b]}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": SENTENCES}))
    assert found.ok and found.warnings == []
    assert {"export_annotation_format", "output_annotation_format"} <= set(found.ignored)


SIDE_BY_SIDE = Path(__file__).parent / "potato_side_by_side"


@pytest.mark.parametrize(("project", "path", "value", "said"), [
    ("networks", ("annotation_schemes", 0, "stages", 0, "type"), "foo",
     "config.yaml:18: annotation_schemes.0.stages.0.type: type 'foo' is not one of name_generator, name_interpreter, "
     "dyad_census, sociogram"),
    ("networks", ("annotation_schemes", 0, "stages", 0, "type"), {},
     "config.yaml:18: annotation_schemes.0.stages.0.type"),
    ("verdicts", ("annotation_schemes", 4, "taxonomy"), 5,
     "config.yaml:41: annotation_schemes.4: scheme 'topic' (hierarchical_multiselect): taxonomy is 5; give the tree "
     "as {name: [children]} or a list of names"),
    ("errors", ("annotation_schemes", 0, "error_types", 0, "subtypes"), 5,
     "config.yaml:14: annotation_schemes.0: scheme 'errors' (error_span): error_types.0.subtypes is 5; give a list of "
     "names, or none"),
    ("verdicts", ("annotation_schemes", 3, "pairs"), 5,
     "config.yaml:32: annotation_schemes.3: give the rows as options, or as an item field"),
    ("scales", ("annotation_schemes", 0, "labels"), ["Reply A"],
     "config.yaml:16: annotation_schemes.0.labels: has 1 entry; give at least 2"),
])
def test_a_side_by_side_config_with_one_key_gone_wrong_is_named_at_it(tmp_path, project, path, value, said):
    """Each of the side-by-side projects' configs with one key changed to what it cannot be (found by trying every
    key of every project with a number, a word, a mapping and a list): named at its line, where the import crashed
    (a taxonomy, subtypes or pairs that are a number, a stage type that is a mapping) or said a stage's type was a
    scheme's annotation_type."""
    import yaml

    folder = tmp_path / project
    shutil.copytree(SIDE_BY_SIDE / project, folder, ignore=shutil.ignore_patterns("potato-*"))
    config = yaml.safe_load((folder / "config.yaml").read_text())
    node = config
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    found = import_file(str(folder / "config.yaml"))
    assert [error for error in found.errors if said in error], found.errors


def test_per_turn_ratings_whose_end_labels_are_no_list_have_none(tmp_path):
    """A per-turn rating's `labels` that is a number (it crashed the import) is no end labels: the import runs."""
    import yaml

    turns = SIDE_BY_SIDE / "turns"
    config = yaml.safe_load((turns / "config.yaml").read_text())
    config["instance_display"]["fields"][0]["display_options"]["per_turn_ratings"]["schemes"][0]["scheme"]["labels"] = 5
    shutil.copytree(turns, tmp_path / "turns", ignore=shutil.ignore_patterns("potato-*"))
    (tmp_path / "turns" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    assert import_file(str(tmp_path / "turns" / "config.yaml")).ok
