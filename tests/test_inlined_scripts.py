"""The scripts a page inlines (an MTurk question, the preview: hits.templatetags.inline_static) are minified, and
minifying keeps what they say: every template literal's text is in the minified script as written. rjsmin reads a
template literal nested in another's ${...} as code and drops the spaces beside its punctuation ("these 2 events"
became "these 2events"), so a script writes such a text without the nesting."""

import subprocess
from pathlib import Path

import pytest
import rjsmin

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / name for name in subprocess.run(["git", "ls-files", "*.js"], cwd=ROOT, capture_output=True,
                                                    text=True, check=True).stdout.split() if "/static/" in name]


def template_texts(script: str) -> list[str]:
    """The text parts of the script's template literals (between their backticks, ${ and }), as written."""
    texts: list[str] = []
    stack: list = []  # "text" inside a template literal, [braces] inside one's ${...}
    place, start, last = 0, 0, ""  # `last`: the code's last character that is not a space
    while place < len(script):
        char, top = script[place], stack[-1] if stack else None
        if top != "text" and not char.isspace() and not script.startswith(("//", "/*"), place):
            before, last = last, char
        else:
            before = last
        if top == "text":
            if char == "\\":
                place += 2
                continue
            if char == "`" or script.startswith("${", place):
                texts.append(script[start:place])
                if char == "`":
                    stack.pop()
                else:
                    stack.append([0])
                    place += 1
            place += 1
            continue
        if char in "'\"":  # a string: skipped to its end
            place += 1
            while place < len(script) and script[place] != char:
                place += 2 if script[place] == "\\" else 1
        elif script.startswith("//", place):
            place = script.find("\n", place)
            place = len(script) if place < 0 else place
            continue
        elif script.startswith("/*", place):
            place = script.index("*/", place) + 1
        elif char == "/" and (not before or before in "(,=:[!&|?{};+-*%<>~^"):  # a regular expression, to its end
            place, in_class = place + 1, False
            while script[place] != "/" or in_class:
                in_class = (in_class or script[place] == "[") and script[place] != "]"
                place += 2 if script[place] == "\\" else 1
        elif char == "`":
            stack.append("text")
            start = place + 1
        elif isinstance(top, list) and char == "{":
            top[0] += 1
        elif isinstance(top, list) and char == "}":
            if top[0]:
                top[0] -= 1
            else:
                stack.pop()
                start = place + 1
        place += 1
    return texts


def test_the_reader_finds_a_nested_literal_s_text():
    assert template_texts('const a = `x ${b ? ` (y)` : ""} z`; // `no`') == ["x ", " (y)", " z"]
    assert template_texts("const r = /['`]/g, s = `a${r}b`, t = 1 / 2 / `c`;") == ["a", "b", "c"]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.name)
def test_minifying_keeps_every_template_literal_s_text(path):
    script = path.read_text(encoding="utf-8")
    written, kept = template_texts(script), template_texts(rjsmin.jsmin(script))
    changed = [(text, after) for text, after in zip(written, kept, strict=False) if text != after]
    assert len(written) == len(kept) and changed == [], (
        f"{path.relative_to(ROOT)}: {changed[:3]}; write these texts without nesting one template literal in another")
