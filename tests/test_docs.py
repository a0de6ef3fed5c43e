"""The docs stay true.

Every `console` block of the getting-started pages runs, in order, page by page, in a scratch project (the
repository's files linked into a temporary folder, a new SQLite database): each `$ ` line is a command that
must succeed, and each line shown under it must appear in what it printed, in order (`…` stands for
anything). Every scheme type's example in the design file reference is a design file that checks and makes a
batch from the shipped example items.
"""

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from designs.model import TYPE_NAMES as SCHEME_TYPES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
WALKS = sorted((DOCS / "getting-started").glob("*.md"))
EXAMPLES = DOCS / "design-files" / "examples"
# Left out of the scratch project: what a run writes or what only this checkout has.
NOT_LINKED = {".git", "site", "exports", "uploads", "bench", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
MARK = "@@docs-command@@"


def console_blocks(text):
    """[(line number, command, [expected output lines])] of every ```console block, in order."""
    commands, in_block = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() == "```console":
            in_block = True
        elif in_block and line.startswith("```"):
            in_block = False
        elif in_block and line.startswith("$ "):
            commands.append((number, line[2:], []))
        elif in_block and commands and line.strip():
            commands[-1][2].append(line)
    return commands


def shown(expected):
    """A line shown under a command as a pattern: `…` is anything, runs of spaces are any spaces."""
    parts = [r"\s+".join(re.escape(word) for word in part.split()) for part in expected.split("…")]
    return re.compile(".*".join(parts))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def scratch_project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in NOT_LINKED and not entry.name.startswith("db.sqlite3"):
            (project / entry.name).symlink_to(entry)
    (tmp_path / "shared").symlink_to(settings.SHARED_DIR)
    return project


def script(commands, port):
    """One bash script for the page, so that `source` and variables carry from a command to the next."""
    lines = ["set -eo pipefail"]
    for number, command, _ in commands:
        lines.append(f"echo '{MARK} {number}'")
        if re.fullmatch(r"python manage\.py runserver", command):
            # The page starts the site and leaves it running; here it must answer, then stop.
            lines.append(f"python manage.py runserver --noreload 127.0.0.1:{port} & server=$!")
            lines.append(f"python -c \"import time, urllib.request as u\nfor _ in range(100):\n    try:\n"
                         f"        u.urlopen('http://127.0.0.1:{port}/accounts/login/'); print('site up'); break\n"
                         f"    except OSError: time.sleep(0.2)\nelse: raise SystemExit('runserver did not answer')\"")
            lines.append("kill $server")
        else:
            lines.append(command)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("page", WALKS, ids=[page.stem for page in WALKS])
def test_every_command_of_the_getting_started_pages_runs_as_shown(page, tmp_path):
    commands = console_blocks(page.read_text(encoding="utf-8"))
    if page.stem != "annotator":
        assert commands, f"{page.name} shows no console block"
    project = scratch_project(tmp_path)
    env = {key: value for key, value in os.environ.items()
           if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV"}}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    done = subprocess.run(["bash", "-c", script(commands, free_port())], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    outputs, current = {}, None
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith(MARK):
            current = int(line.split()[1])
            outputs[current] = []
        elif current is not None:
            outputs[current].append(line)
    if done.returncode:
        command = next(command for number, command, _ in commands if number == current)
        pytest.fail(f"{page.name}:{current}: `{command}` failed ({done.returncode}):\n"
                    + "\n".join(outputs.get(current, [])[-30:]))
    for number, command, expected in commands:
        printed = iter(outputs[number])
        for line in expected:
            pattern = shown(line)
            assert any(pattern.fullmatch(got.strip()) for got in printed), (
                f"{page.name}:{number}: `{command}` did not print {line!r}; it printed:\n"
                + "\n".join(outputs[number]))


def test_every_scheme_type_has_an_example_in_the_reference():
    assert sorted(path.stem for path in EXAMPLES.glob("*.yaml")) == sorted(SCHEME_TYPES)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", SCHEME_TYPES)
def test_each_scheme_type_s_example_checks_and_makes_a_batch(kind, capsys):
    design = EXAMPLES / f"{kind}.yaml"
    call_command("design", "check", str(design))
    call_command("design", "new", str(design), "--items", str(EXAMPLES / "items.jsonl"))
    printed = capsys.readouterr().out
    assert f"{design}: valid" in printed
    assert "4 items from items.jsonl" in printed and "batch " in printed


def test_the_readme_links_only_to_files_the_repository_has():
    # The site's generated pages are not files here: the README must not link to them as if they were.
    links = re.findall(r"\]\(([^)#]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert missing == []
