"""A Potato project brought with the work already saved in it (annotation_output/<user>/user_state.json): the
answers come over as their annotators', and our export in Potato's format gives back what Potato's own export wrote
of them (potato_saved/make.py says how the states were made, and checked, with Potato 2.12.1)."""

import json
import shutil
from pathlib import Path

import pytest

from designs.export import export_batch
from designs.models import OutsideAnswer
from designs.potato import UploadedFolder, import_config, import_file
from tests.designs.fixtures import potato_project

RUNS = Path(__file__).parent / "potato_side_by_side"
SAVED = Path(__file__).parent / "potato_saved"
PROJECTS = sorted(path.name for path in SAVED.iterdir() if path.is_dir())


def _project_folder(name: str, into: Path) -> Path:
    """The side-by-side project as its folder was after the run: config, data and annotation_output/."""
    folder = into / name
    shutil.copytree(RUNS / name, folder, ignore=shutil.ignore_patterns("potato-*"))
    shutil.copytree(SAVED / name, folder / "annotation_output")
    return folder


def _records(text: str) -> dict[str, dict]:
    """Records by item, without the annotator's name (ours says where the answer came from: potato:ada), an input
    that holds a JSON object read as one: PostgreSQL keeps a stored answer's keys in its own order (jsonb), so the
    export lists them so, where Potato lists them in the order its page was answered."""
    def read(value):
        try:
            found = json.loads(value)
        except (TypeError, ValueError):
            return value
        return found if isinstance(found, dict) else value

    records = {record["instance_id"]: {key: value for key, value in record.items() if key != "user_id"}
               for record in map(json.loads, text.splitlines())}
    for record in records.values():
        record["labels"] = {scheme: {name: read(value) for name, value in inputs.items()}
                            for scheme, inputs in record["labels"].items()}
    return records


def _unread(found) -> set[str]:
    """The schemes whose saved answers the import named as not read back."""
    return {warning.split("'")[1] for warning in found.warnings if "the saved answers of scheme" in warning}


def test_the_saved_states_are_what_potato_exported():
    """Each project has its states, one an annotator of its potato-annotations.jsonl (the test below leans on it)."""
    runs = sorted(path.name for path in RUNS.iterdir() if (path / "potato-annotations.jsonl").exists())
    assert runs == PROJECTS
    for name in PROJECTS:
        users = {json.loads(line)["user_id"] for line in (RUNS / name / "potato-annotations.jsonl").read_text()
                 .splitlines()}
        assert {path.name for path in (SAVED / name).iterdir()} == users


@pytest.mark.django_db
@pytest.mark.parametrize("name", PROJECTS)
def test_saved_answers_come_over_and_go_back_out_as_potato_wrote_them(name, tmp_path, capsys):
    folder = _project_folder(name, tmp_path)
    found = import_file(str(folder / "config.yaml"))
    assert found.ok, found.errors
    unread = _unread(found)
    written = (RUNS / name / "potato-annotations.jsonl").read_text()
    expected = _records(written)
    assert {given.annotator for given in found.given} == {json.loads(line)["user_id"] for line in
                                                          written.splitlines()} or not found.given
    project = potato_project(folder / "config.yaml", capsys)
    batch = project.batches.get()
    assert OutsideAnswer.objects.filter(batch=batch, source="potato").count() == len(found.given)
    paths = {path.name: path for path in export_batch(batch=batch, out=tmp_path / "export", formats=("potato",))}
    ours = _records(paths["annotations.jsonl"].read_text())
    # Potato's export writes no events; ours writes them as Potato's page keeps them: the stored ones, the one its
    # page replaced aside (ids aside: Potato's are random).
    stored = RUNS / name / "potato-stored-events.json"
    events = {item: [{**event, "id": ""} for event in record.pop("events", {}).get("events", [])]
              for item, record in ours.items()}
    assert events == {item: ([{**list(kept.values())[-1], "id": ""}] if stored.exists() else [])
                      for item, kept in (json.loads(stored.read_text()) if stored.exists() else {
                          item: {} for item in ours}).items()}
    # What is read back is what Potato saved, input for input; a scheme not read back is named, never half-read.
    for record in expected.values():
        for part in ("labels", "spans"):
            record[part] = {scheme: value for scheme, value in record[part].items() if scheme not in unread}
    expected = {item: record for item, record in expected.items() if record["labels"] or record["spans"]}
    assert ours == expected


def _weather(states: dict[str, bytes]) -> dict[str, bytes]:
    """The weather project as uploaded files, with the saved states given (path under annotation_output/: bytes)."""
    folder = RUNS / "weather"
    return {"data/tweets.jsonl": (folder / "data" / "tweets.jsonl").read_bytes(),
            **{f"annotation_output/{path}": data for path, data in states.items()}}


def _state(user: str, labels: dict[str, list], spans: dict[str, list] | None = None) -> bytes:
    """A saved state as Potato writes one: each item's labels as [[{schema, name}, value], ...]."""
    return json.dumps({"user_id": user, "instance_id_to_label_to_value": labels,
                       "instance_id_to_span_to_value": spans or {}}).encode()


def test_saved_work_that_cannot_be_read_is_named_and_left_out():
    """A state that is not JSON, an item the project does not have, a label the scheme does not offer, a scheme the
    config does not have, a span past the text's end, two picks where a scheme takes one (as Potato before its
    single-select fix could save): each named with its file, and the rest of the work kept."""
    good = _state("ada", {"t1": [[{"schema": "stance", "name": "happy"}, "happy"],
                                 [{"schema": "sure", "name": "6"}, "6"]],
                          "t2": [[{"schema": "stance", "name": "furious"}, "furious"],
                                 [{"schema": "topics", "name": "wind"}, "wind"],
                                 [{"schema": "mood", "name": "grim"}, "grim"]],
                          "t9": [[{"schema": "stance", "name": "happy"}, "happy"]]},
                  {"t2": [[{"schema": "cause", "name": "cause", "title": "cause", "start": 20, "end": 99,
                            "id": "x"}, "1"]]})
    found = import_config((RUNS / "weather" / "config.yaml").read_bytes(), name="config.yaml", folder=UploadedFolder(
        _weather({"ada/user_state.json": good, "bob/user_state.json": b"{not json", "cy/user_state.json": b"[]",
                  "dee/user_state.json": good, "eve/user_state.json": _state("eve", {"t1": [
                      [{"schema": "stance", "name": "happy"}, "happy"],
                      [{"schema": "stance", "name": "unhappy"}, "unhappy"]]}),
                  "fay/user_state.json": b'{"user_id": "fay", "instance_id_to_label_to_value": {"t1": "happy"}}'})))
    assert found.ok, found.errors
    assert [(given.item, given.annotator, given.answers) for given in found.given] == [
        ("t1", "ada", {"stance": "happy"}), ("t2", "ada", {"topics": ["wind"]})]
    said = [warning for warning in found.warnings if "annotation_output" in warning]
    assert said[0].startswith("annotation_output/ada/user_state.json: ada's sure on item 't1' does not fit (")
    assert said[1].startswith("annotation_output/ada/user_state.json: ada's stance on item 't2' does not fit (")
    assert said[2].startswith("annotation_output/ada/user_state.json: ada's cause on item 't2' does not fit (")
    assert said[3:] == [
        "annotation_output/ada/user_state.json: item 't9' is not among the project's items; ada's answer to it is "
        "left out",
        "annotation_output/bob/user_state.json: not read (Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)); that annotator's saved answers are left out",
        "annotation_output/cy/user_state.json: is not a saved state (a JSON object); left out",
        "annotation_output/dee/user_state.json: ada's work was read from annotation_output/ada/user_state.json "
        "already; this one is left out",
        "annotation_output/eve/user_state.json: eve's stance on item 't1' does not fit (happy, unhappy were saved "
        "where the scheme takes one); left out",
        "annotation_output/fay/user_state.json: its answers are not in the shape Potato saves them ('str' object "
        "has no attribute 'items'); left out",
        "annotation_output: the saved answers of scheme 'mood': no scheme of the config has that name; left out"]
    assert found.as_json()["annotations"] == 2 and found.as_json()["saved_work"] == "annotation_output"


def test_a_saved_span_whose_id_is_no_name_leaves_out_what_names_it(tmp_path):
    """A saved span whose id is a mapping (a hand-edited state; it crashed the import) names nothing: the event
    that names it by its id is said not to fit and left out; the annotator's other answers come over."""
    folder = _project_folder("events", tmp_path)
    state = sorted((folder / "annotation_output").glob("*/user_state.json"))[0]
    saved = json.loads(state.read_text())
    saved["instance_id_to_span_to_value"]["e1"][0][0]["id"] = {}
    state.write_text(json.dumps(saved))
    found = import_file(str(folder / "config.yaml"))
    assert found.ok, found.errors
    assert f"annotation_output/{state.parent.name}/user_state.json: {state.parent.name}'s events on item 'e1' does " \
           f"not fit ('entities_ACTOR_0_6'); left out" in found.warnings
    assert [sorted(given.answers) for given in found.given if given.item == "e1"] == [["entities"]]


def test_a_project_without_saved_work_imports_as_before():
    found = import_config((RUNS / "weather" / "config.yaml").read_bytes(), name="config.yaml",
                          folder=UploadedFolder(_weather({})))
    assert found.ok and found.given == [] and "annotations" not in found.as_json()
