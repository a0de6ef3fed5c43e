"""Real projects with one thing gone wrong: every key of every Potato side-by-side project's config, and every key of
each of Label Studio's example tasks, set in turn to a number, a mapping and a list (what a hand edit or another
tool's version makes of a file). Each import either runs (and its first page renders) or names what is wrong; none
crashes. Single cases found this way are tested where their type is; this walks them all (slow)."""

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml
from django.template.loader import render_to_string

from core.errors import CrowdsetError
from designs.labelstudio import import_project
from designs.potato import import_file
from designs.services import preview_context

HERE = Path(__file__).parent
ODD = (5, {}, [5])
pytestmark = pytest.mark.slow


def _paths(node, path=()):
    """The path of every key and list entry under `node`."""
    entries = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in entries:
        yield (*path, key)
        yield from _paths(value, (*path, key))


def _changed(document, path, value):
    changed = copy.deepcopy(document)
    node = changed
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return changed


def _crashes(load, document):
    """The (path, value, error) of each one-key change whose import raised anything but a named refusal."""
    found = []
    for path in _paths(document):
        for value in ODD:
            try:
                imported = load(_changed(document, path, value))
                if imported.ok:
                    render_to_string("projects/design_preview.html",
                                     preview_context(imported.design, imported.records, "items"))
            except CrowdsetError:
                pass
            except Exception as error:  # what is looked for: anything but a named refusal
                found.append((".".join(map(str, path)), value, f"{type(error).__name__}: {error}"))
    return found


@pytest.mark.parametrize("project", sorted(path.name for path in (HERE / "potato_side_by_side").iterdir()
                                          if (path / "config.yaml").exists()))
def test_a_potato_config_with_any_one_key_wrong_is_run_or_refused(project, tmp_path):
    folder = tmp_path / project
    shutil.copytree(HERE / "potato_side_by_side" / project, folder, ignore=shutil.ignore_patterns("potato-*"))
    config = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))

    def load(changed):
        (folder / "config.yaml").write_text(yaml.safe_dump(changed, sort_keys=False), encoding="utf-8")
        return import_file(str(folder / "config.yaml"))

    assert _crashes(load, config) == []


@pytest.mark.parametrize("example", sorted(path.name for path in (HERE / "labelstudio_examples").iterdir()
                                          if (path / "config.xml").exists()))
def test_label_studio_tasks_with_any_one_key_wrong_are_run_or_refused(example):
    config = (HERE / "labelstudio_examples" / example / "config.xml").read_bytes()
    tasks = json.loads((HERE / "labelstudio_examples" / example / "tasks.json").read_text(encoding="utf-8"))

    def load(changed):
        return import_project(config, name="config.xml", tasks=json.dumps(changed).encode(), tasks_name="tasks.json")

    assert _crashes(load, tasks) == []


def _potato_folder(project, into):
    folder = into / project
    shutil.copytree(HERE / "potato_side_by_side" / project, folder, ignore=shutil.ignore_patterns("potato-*"))
    return folder


@pytest.mark.parametrize("project", sorted(path.name for path in (HERE / "potato_side_by_side").iterdir()
                                          if (path / "config.yaml").exists()))
def test_a_potato_project_s_items_with_any_one_key_wrong_are_run_or_refused(project, tmp_path):
    """The first three items of the project's first data file, each key in turn."""
    folder = _potato_folder(project, tmp_path)
    data = sorted(path for path in folder.rglob("*.jsonl"))[0]
    lines = data.read_text(encoding="utf-8").splitlines()
    first, rest = [json.loads(line) for line in lines[:3]], lines[3:]

    def load(changed):
        data.write_text("".join(json.dumps(row) + "\n" for row in changed) + "".join(line + "\n" for line in rest),
                        encoding="utf-8")
        return import_file(str(folder / "config.yaml"))

    assert _crashes(load, first) == []


@pytest.mark.parametrize("project", sorted(path.name for path in (HERE / "potato_saved").iterdir()
                                          if path.is_dir() and (HERE / "potato_side_by_side" / path.name).is_dir()))
def test_a_potato_saved_state_with_any_one_key_wrong_is_read_or_named(project, tmp_path):
    """One annotator's saved state (user_state.json), each key in turn: what does not fit is named and left out."""
    folder = _potato_folder(project, tmp_path)
    shutil.copytree(HERE / "potato_saved" / project, folder / "annotation_output")
    state = sorted((folder / "annotation_output").glob("*/user_state.json"))[0]
    saved = json.loads(state.read_text(encoding="utf-8"))

    def load(changed):
        state.write_text(json.dumps(changed), encoding="utf-8")
        return import_file(str(folder / "config.yaml"))

    assert _crashes(load, saved) == []
