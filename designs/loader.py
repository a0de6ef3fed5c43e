"""Reading a design file: YAML in, a checked `Design` out, or every problem found with its file, line and key.

YAML is read safely (plain data, never tags that build objects: a design file never runs code), and the line of
every key and list entry is kept, so an error found by the model points at the line the person has to change.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from core.errors import InputError
from designs.model import TYPE_NAMES, Design

MAX_BYTES = 1_000_000  # a design is a page of YAML; a megabyte is a mistake (a data file given by error)
# The values a file may hold once its aliases are read: an alias of a list of aliases of lists (a "billion
# laughs") is a few lines that every reading, and the check run as one types, would walk millions of times over.
MAX_VALUES = 200_000


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


class DesignError(InputError):
    """A design file that does not fit the model; `problems` lists every one found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first.key + ': ' if first.key else ''}{first.message}{more}", file=first.file,
                         line=first.line)


def load_file(path: str | Path) -> Design:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        problem = Problem(str(path), None, "", f"cannot read it ({error.strerror}); check the path")
        raise DesignError([problem]) from None
    return load_bytes(data, name=path.name)


def load_bytes(data: bytes, *, name: str) -> Design:
    return load_text(decode(data, name=name), name=name)


def decode(data: bytes, *, name: str, what: str = "a design file") -> str:
    """A config's bytes as text; too large or not UTF-8 is a DesignError naming the file (and the line)."""
    if len(data) > MAX_BYTES:
        raise DesignError([Problem(name, None, "", f"is {len(data):,} bytes; {what} is at most "
                                                   f"{MAX_BYTES:,} (is this a data file?)")])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise DesignError([Problem(name, line, "", f"invalid UTF-8 at byte {error.start}; save it as UTF-8")]) from None


def load_text(text: str, *, name: str = "design.yaml") -> Design:
    """The design in `text`, checked; a DesignError lists what is wrong, each with its line."""
    raw, lines = parse_yaml(text, name=name)
    return validate(raw, lines, name=name)


# PyYAML's words for what is wrong, and what a person would say (and do) instead.
YAML_WORDS = (
    ("'\\t'", "a tab is used to indent; indent with spaces"),
    ("expected <block end>", "the indentation is off: this line is indented more or less than the lines at its "
                             "level (a key of a list entry lines up with the one after '- ')"),
    ("could not find expected ':'", "a key without its colon: write 'key: value'"),
    ("mapping values are not allowed here", "a colon where a value was expected: put a value holding ': ' in "
                                            "quotes, or start the nested keys on a new, indented line"),
    ("expected ',' or ']'", "a list in [ ] is not closed, or lacks a comma between its entries"),
    ("expected ',' or '}'", "a mapping in { } is not closed, or lacks a comma between its entries"),
    ("found unexpected end of stream", "a quote is opened and not closed"),
    ("found undefined alias", "an alias (*name) with no anchor (&name) before it"),
    ("did not find expected key", "the indentation is off, or a '- ' list entry sits among keys"),
    ("did not find expected '-' indicator", "a list entry without its '- ', or indented differently from the rest"),
    ("found character '@' that cannot start any token", "a value starting with @ must be in quotes"),
    ("found character '`' that cannot start any token", "a value starting with ` must be in quotes"),
)


def yaml_in_words(error: yaml.MarkedYAMLError) -> str:
    said = f"{error.context or ''} {error.problem or ''}"
    for found, words in YAML_WORDS:
        if found in said:
            return words
    return error.problem or str(error)


def parse_yaml(text: str, *, name: str) -> tuple[Any, dict[tuple, int]]:
    """The YAML's plain data and the line of each path in it ((), ("annotation_schemes", 0, "labels"), ...)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)  # an alias is the same object again here: a loop or a bomb is walked below
        lines: dict[tuple, int] = {}
        if node is not None:
            _mark(node, (), lines, _Walk(name))
    except RecursionError:
        raise DesignError([Problem(name, None, "", "is nested too deeply to read (lists or mappings inside one "
                                                   "another hundreds of levels down); write it flatter")]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        if "could not find expected ':'" in str(error.problem) and error.context_mark:
            mark = error.context_mark  # where the key without its colon starts, not where the scanner gave up
        line = mark.line + 1 if mark else None
        raise DesignError([Problem(name, line, "", f"not valid YAML: {yaml_in_words(error)}")]) from None
    except yaml.YAMLError as error:
        raise DesignError([Problem(name, None, "", f"not valid YAML: {error}")]) from None
    if not isinstance(raw, dict):
        found = "empty" if raw is None else f"a {type(raw).__name__}"
        raise DesignError([Problem(name, 1, "", f"is {found}; a design file is a mapping of keys "
                                               f"(title, annotation_schemes, ...)")])
    return raw, lines


@dataclass
class _Walk:
    """What a walk over a composed file has seen: the values so far, and the nodes it is inside (an alias inside
    what its anchor marks is the node again, on the way down)."""

    name: str
    values: int = 0
    inside: set[int] = field(default_factory=set)

    def refuse(self, path: tuple, lines: dict[tuple, int], message: str) -> None:
        raise DesignError([Problem(self.name, lines.get(path), ".".join(map(str, path)), message)])


def _mark(node: yaml.Node, path: tuple, lines: dict[tuple, int], walk: _Walk) -> None:
    lines.setdefault(path, node.start_mark.line + 1)  # a mapping's key has set its own line, where it can be fixed
    walk.values += 1
    if walk.values > MAX_VALUES:  # said at the top-level key whose aliases grew so
        walk.refuse(path[:1], lines, f"its aliases (*name) repeat what they name so often that the file holds "
                                     f"over {MAX_VALUES:,} values; write the values out instead of aliases of aliases")
    if id(node) in walk.inside:
        walk.refuse(path, lines, "an alias (*name) inside what its anchor (&name) marks holds that again without "
                                 "end; write the values out")
    walk.inside.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = (*path, key.value)
            lines[child] = key.start_mark.line + 1
            _mark(value, child, lines, walk)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            _mark(value, (*path, index), lines, walk)
    walk.inside.discard(id(node))


def validate(raw: dict, lines: dict[tuple, int], *, name: str) -> Design:
    try:
        design = Design.model_validate(raw, context={"defer_references": True})
    except ValidationError as error:
        problems = [_problem(entry, raw, lines, name) for entry in error.errors(include_url=False)]
        raise DesignError(sorted(set(problems), key=lambda p: (p.line or 0, p.key))) from None
    problems = [Problem(name, lines.get(path) or nearest(path, lines), ".".join(map(str, path)), message)
                for path, message in design.reference_problems()]
    if problems:
        raise DesignError(problems)
    return design


def _problem(entry: Any, raw: Any, lines: dict[tuple, int], name: str) -> Problem:
    path = _data_path(entry["loc"], raw)
    key = ".".join(str(part) for part in path)
    line = lines.get(path) or nearest(path, lines)
    kind, message = entry["type"], entry["msg"]
    if kind == "extra_forbidden":
        message = f"unknown key {path[-1]!r}{_did_you_mean(path[-1], _allowed(path, raw))}"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        # A scheme's annotation_type, or the key another choice of kinds is told by (an ego network stage's type).
        context = entry.get("ctx", {})
        tag = str(context.get("discriminator", "annotation_type")).strip("'")
        expected = list(TYPE_NAMES) if tag == "annotation_type" else [
            part.strip(" '") for part in str(context.get("expected_tags", "")).split(",") if part.strip(" '")]
        found = context.get("tag")
        close = difflib.get_close_matches(str(found), expected, n=1, cutoff=0.6) if found else []
        message = (f"{tag} {found!r} is not one of {', '.join(expected)}"
                   + (f"; did you mean {close[0]!r}?" if close else "") if found
                   else f"needs {'an' if tag[0] in 'aeiou' else 'a'} {tag}"
                        + (f", one of {', '.join(expected)}" if expected else ""))
        key = ".".join(str(part) for part in (*path, tag))
        line = lines.get((*path, tag), line)
    elif kind == "missing":
        message = "is missing; add it"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):  # not "instance of Items", a class name
        message = f"is {_input(entry)}; it must be a mapping of keys ({{key: value}}, or key: value lines under it)"
    elif kind in ("string_too_short", "string_too_long"):
        context, given = entry.get("ctx", {}), len(str(entry.get("input", "")))
        message = (f"is {given} characters long; give at most {context.get('max_length')}" if kind == "string_too_long"
                   else "is empty; write it" if not given
                   else f"is {given} characters long; give at least {context.get('min_length')}")
    elif kind in ("too_short", "too_long") and isinstance(entry.get("input"), list):
        bound = entry.get("ctx", {}).get("min_length" if kind == "too_short" else "max_length")
        given = len(entry["input"])
        if kind == "too_long":
            message = f"has {given} entries; give at most {bound}"
        else:
            message = f"has {given} {'entry' if given == 1 else 'entries'}; give at least {bound}" if given else \
                "is empty; give at least one"
        if path == ("annotation_schemes",) and not given:
            message = "is empty; a design asks at least one question: list its schemes here (annotation_type, name)"
    elif kind == "literal_error":
        message = f"is {_input(entry)}; {entry['msg'][0].lower()}{entry['msg'][1:]}"
    elif message.startswith("Value error, "):
        message = message[len("Value error, "):]
    elif message.startswith("Input should be"):
        message = f"is {_input(entry)}; it must be{message[len('Input should be'):]}"
    return Problem(name, line, key, message)


def _input(entry: dict) -> str:
    value = entry.get("input")
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else repr(value)


def _data_path(loc: tuple, raw: Any) -> tuple:
    """The error's location as a path in the data: pydantic puts the union member's tag ("radio") and
    validator names in `loc`, which are not keys of the file."""
    path: list = []
    node = raw
    for part in loc:
        listed = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if (isinstance(node, dict) and part in node) or listed:
            path.append(part)
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part == loc[-1] and part not in TYPE_NAMES:
            path.append(part)  # a missing key: point at its mapping, name the key
    return tuple(path)


def nearest(path: tuple, lines: dict[tuple, int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _allowed(path: tuple, raw: Any) -> list[str]:
    """The keys the model allows where `path` ends, for the "did you mean"."""
    model: Any = Design
    node = raw
    for part in path[:-1]:
        node = node[part]
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) if isinstance(model, type) and issubclass(model, BaseModel) else None
        if field is None:
            return []
        model = _inner_model(field.annotation, node)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [field.alias or name for name, field in model.model_fields.items()]
    return []


def _inner_model(annotation: Any, node: Any) -> Any:
    """The model a field's value is checked against: through lists, dicts, optionals and the scheme union."""
    from typing import get_args, get_origin

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    candidates = [arg for arg in get_args(annotation) if arg is not type(None)]
    if get_origin(annotation) is dict:
        candidates = candidates[1:]
    for candidate in candidates:
        found = _inner_model(candidate, node)
        if found is None:
            continue
        tag = node.get("annotation_type") if isinstance(node, dict) else None
        if tag is None or "annotation_type" not in getattr(found, "model_fields", {}):
            return found
        if tag in get_args(found.model_fields["annotation_type"].annotation):
            return found
    return None


def _did_you_mean(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else (
        f"; allowed here: {', '.join(choices)}" if choices else "")


def check_report(paths: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """For `design check`: per file, whether it is valid and its problems. Nothing is written."""
    report, ok = [], True
    for path in paths:
        try:
            design = load_file(path)
            report.append({"file": path, "valid": True, "title": design.title,
                           "schemes": [scheme.name for scheme in design.annotation_schemes], "problems": []})
        except DesignError as error:
            ok = False
            report.append({"file": path, "valid": False,
                           "problems": [problem.as_json() for problem in error.problems]})
    return report, ok


def schema_json() -> str:
    """designs/schema.json as it must read: generated from the model, never edited by hand."""
    return json.dumps(Design.model_json_schema(by_alias=True), indent=2, sort_keys=True) + "\n"
