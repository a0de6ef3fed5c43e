"""Potato projects as design files: a Potato config (YAML) and its data files in, our design and its items out.

Potato's scheme vocabulary is ours already, so most of a config carries over key for key; what differs is
translated here (a `textarea: {on, rows}` box, `has_free_response: {instruction}`, a pairwise
`multi_dimension` scheme as one pairwise scheme per dimension, a select's `label_file`, `not_empty`), what
sets up Potato's own server is listed as ignored, and a scheme this platform cannot show (images, audio,
video, …) makes the config not ok with the scheme's line. Errors found by the design model point at the line
of the Potato config the key came from. Django-free and pure: the config and its files come in as bytes
through a `Folder`, so the command and the browser upload share every rule.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import yaml

from designs.items import FORMATS, ItemsError, Record, read_records
from designs.loader import DesignError, decode, nearest, parse_yaml, validate
from designs.model import NAME, TYPE_NAMES, Design, Items
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import LabelledScheme

# Top-level keys this importer reads (the rest only set up Potato's server and pages, or are features this
# platform does not have: they are reported as ignored).
READ = ("annotation_task_name", "task_dir", "data_files", "item_properties", "annotation_schemes",
        "num_annotators_per_item", "max_annotations_per_item", "annotation_instructions", "task_description",
        "annotation_codebook_url", "prolific", "mturk")
# The Potato keys every scheme carries over (each type's own: designs.schemes' potato_keys).
COMMON = ("annotation_type", "name", "description", "label_requirement", "display_logic")
LABEL_KEYS = ("name", "tooltip", "description", "key_value", "key_binding", "color", "abbreviation")
OPERATORS = {"equals": "equals", "not_equals": "not_equals", "contains": "contains", "not_contains": "not_contains",
             "empty": "empty", "not_empty": "answered", "answered": "answered", "gt": "gt", "gte": "gte",
             "lt": "lt", "lte": "lte", "in_range": "in_range", "not_in_range": "not_in_range"}


class Folder(Protocol):
    """Where a config's relative paths are read from."""

    def read(self, path: str) -> bytes:
        """The file at `path` (posix, relative to the config's folder); FileNotFoundError if there is none."""
        ...


class DiskFolder:
    def __init__(self, root: Path):
        self.root = root

    def read(self, path: str) -> bytes:
        try:
            return (self.root / path).read_bytes()
        except OSError:
            raise FileNotFoundError(path) from None


class UploadedFolder:
    """Files uploaded together (or a zip of the folder), by their path relative to the config's folder. A file
    uploaded on its own has lost its folder: it is found by its name when that name is unique."""

    def __init__(self, files: dict[str, bytes]):
        self.files = {posixpath.normpath(name): data for name, data in files.items()}

    def read(self, path: str) -> bytes:
        path = posixpath.normpath(path)
        if path in self.files:
            return self.files[path]
        named = [name for name in self.files if posixpath.basename(name) == posixpath.basename(path)]
        if len(named) == 1:
            return self.files[named[0]]
        raise FileNotFoundError(path)


@dataclass
class Imported:
    """One config's import: the design (None when it is not ok), its items and what was not carried over."""

    config: str
    potato: dict[str, Any] = field(default_factory=dict)
    design: Design | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.design is not None and not self.errors

    def schemes(self) -> list[dict[str, str]]:
        """The config's schemes as it names them (one we cannot show included)."""
        schemes = self.potato.get("annotation_schemes")
        return [{"name": str(scheme.get("name", "")), "type": str(scheme.get("annotation_type", ""))}
                for scheme in schemes if isinstance(scheme, dict)] if isinstance(schemes, list) else []

    def as_json(self) -> dict[str, Any]:
        return {"config": self.config, "ok": self.ok, "items": len(self.records), "schemes": self.schemes(),
                "ignored": self.ignored, "errors": self.errors}

    def source(self) -> str:
        """The design file this config became, as YAML, headed by where it came from."""
        head = [f"# Imported from the Potato config {Path(self.config).name}."]
        if self.ignored:
            head.append(f"# Its keys not used here: {', '.join(self.ignored)}.")
        head += [f"# {note}" for note in self.notes]
        body = yaml.safe_dump(self.raw, sort_keys=False, allow_unicode=True, width=110)
        return "\n".join(head) + "\n" + body


def import_file(path: str) -> Imported:
    """The config at `path` (as the person gave it), its data files read from beside it."""
    config = Path(path)
    try:
        data = config.read_bytes()
    except OSError as error:
        return Imported(config=path, errors=[f"{path}: cannot read it ({error.strerror}); check the path"])
    return import_config(data, name=path, folder=DiskFolder(config.parent))


def import_config(data: bytes, *, name: str, folder: Folder) -> Imported:
    """Translate one Potato config and read its data files. Every problem found is in `errors` as
    "<file>:<line>: <what is wrong>"; nothing is written anywhere."""
    found = Imported(config=name)
    try:
        raw, lines = parse_yaml(decode(data, name=name, what="a Potato config"), name=name)
    except DesignError as error:
        found.errors = [str(problem) for problem in error.problems]
        return found
    found.potato = raw
    translation = _Translation(raw, lines, name, folder)
    found.raw, found.ignored, found.notes = translation.design, translation.ignored, translation.notes
    found.errors = list(translation.errors)
    try:
        design = validate(translation.design, translation.lines(), name=name)
    except DesignError as error:
        # Every problem at once, the translation's and the model's, so one round of fixes is enough.
        found.errors += [str(problem) for problem in error.problems if str(problem) not in found.errors]
        return found
    if found.errors:
        return found
    found.design = design
    compared = {scheme.items_key for scheme in found.design.annotation_schemes if hasattr(scheme, "items_key")}
    found.records, problems = _records(raw, lines, name, folder, found.design.items, compared)
    found.errors += problems
    return found


class _Translation:
    """A Potato config as our design's data, with the config line each of our keys came from."""

    def __init__(self, raw: dict, lines: dict[tuple, int], name: str, folder: Folder):
        self.raw, self.potato_lines, self.name, self.folder = raw, lines, name, folder
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.origin: dict[tuple, tuple] = {}  # our path -> the config's path it came from
        self.names: dict[str, str] = {}  # a Potato scheme name -> ours
        self.text_key = "text"
        self.ignored = [str(key) for key in raw if key not in READ]
        self.design = self._design()

    def error(self, path: tuple, message: str) -> None:
        line = nearest(path, self.potato_lines)
        key = ".".join(map(str, path))
        self.errors.append(f"{self.name}:{line}: {key}: {message}" if line else f"{self.name}: {key}: {message}")

    def lines(self) -> dict[tuple, int]:
        """The config line of every path of our design, for the model's errors."""
        found: dict[tuple, int] = {}

        def walk(node: Any, path: tuple) -> None:
            line = nearest(self._potato_path(path), self.potato_lines)
            if line:
                found[path] = line
            children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            for key, value in children:
                walk(value, (*path, key))

        walk(self.design, ())
        return found

    def _potato_path(self, path: tuple) -> tuple:
        for end in range(len(path), 0, -1):
            if path[:end] in self.origin:
                return self.origin[path[:end]] + path[end:]
        return path

    def _design(self) -> dict[str, Any]:
        raw = self.raw
        title = _text(raw.get("annotation_task_name")) or Path(self.name).stem
        design: dict[str, Any] = {"title": title[:200]}
        self.origin[("title",)] = ("annotation_task_name",)
        if _text(raw.get("task_description")):
            design["description"] = _text(raw["task_description"])
            self.origin[("description",)] = ("task_description",)
        instructions = _text(raw.get("annotation_instructions"))
        codebook = _text(raw.get("annotation_codebook_url"))
        if codebook:
            instructions = f"{instructions}\n\nCodebook: {codebook}".strip()
        if instructions:
            design["instructions"] = instructions
            self.origin[("instructions",)] = ("annotation_instructions",)
        design["items"] = self._items()
        # Potato's pairwise and bws schemes compare what the text key holds unless they name another field.
        self.text_key = design["items"].get("text_key", "text")
        schemes = raw.get("annotation_schemes")
        if not isinstance(schemes, list):
            self.error(("annotation_schemes",), "is missing or not a list; a Potato config lists its schemes "
                                                "under annotation_schemes")
            schemes = []
        design["annotation_schemes"] = []
        for index, scheme in enumerate(schemes):
            design["annotation_schemes"] += self._scheme(index, scheme, len(design["annotation_schemes"]))
        for ours, scheme in enumerate(design["annotation_schemes"]):
            if "display_logic" in scheme:
                scheme["display_logic"] = self._logic(scheme["display_logic"], self.origin[("annotation_schemes",
                                                                                             ours)])
        redundancy = next((key for key in ("num_annotators_per_item", "max_annotations_per_item")
                           if raw.get(key) is not None), None)
        if redundancy:
            design["hits"] = {"assignments_per_hit": raw[redundancy]}
            self.origin[("hits", "assignments_per_hit")] = (redundancy,)
        for crowd in ("prolific", "mturk"):
            if raw.get(crowd):
                design["provider"] = {"name": crowd}
                self.origin[("provider",)] = (crowd,)
                self.notes.append(f"{crowd}: the study is made and paid by this platform's {crowd} provider; "
                                  f"the config's own {crowd} settings are not used")
                break
        return design

    def _items(self) -> dict[str, Any]:
        properties = self.raw.get("item_properties") or {}
        if not isinstance(properties, dict):
            self.error(("item_properties",), "is not a mapping; write {id_key: ..., text_key: ...}")
            return {}
        self.origin[("items",)] = ("item_properties",)
        items = {key: str(properties[key]) for key in ("id_key", "text_key") if properties.get(key) is not None}
        dropped = [str(key) for key in properties if key not in ("id_key", "text_key")]
        if dropped:
            self.notes.append(f"item_properties: {', '.join(dropped)} not used; every other field of a record is "
                              f"kept with the item")
        return items

    def _scheme(self, index: int, scheme: Any, ours: int) -> list[dict[str, Any]]:
        path = ("annotation_schemes", index)
        if not isinstance(scheme, dict):
            self.error(path, f"is a {type(scheme).__name__}; each scheme is a mapping with annotation_type and name")
            return []
        kind_name = str(scheme.get("annotation_type", ""))
        if kind_name not in SCHEME_TYPES:
            what = f"annotation_type {kind_name!r}" if kind_name else "no annotation_type"
            self.error((*path, "annotation_type") if kind_name else path,
                       f"scheme {scheme.get('name', '') or index!r} has {what}, which this platform cannot show; it "
                       f"shows text schemes: {', '.join(TYPE_NAMES)}")
            return []
        kind = SCHEME_TYPES.get(kind_name)
        try:
            parts = kind.potato_split(scheme)
        except ValueError as error:
            self.error(path, str(error))
            return []
        if parts is not None:  # a Potato scheme that is several of ours (a multi-dimension pairwise one)
            converted = [found for number, part in enumerate(parts)
                         for found in self._convert(kind, part, path, ours + number)]
            self.notes.append(f"scheme {scheme.get('name', '')!r}: its {len(parts)} dimensions are {len(parts)} "
                              f"{kind.name} schemes")
            return converted
        return self._convert(kind, scheme, path, ours)

    def _convert(self, kind: Any, scheme: dict, path: tuple, ours: int) -> list[dict[str, Any]]:
        """One Potato scheme as ours: the keys that carry over copied, the rest noted, the type's own translation."""
        name = str(scheme.get("name", ""))
        converted: dict[str, Any] = {}
        dropped = []
        labelled = issubclass(kind.settings, LabelledScheme)
        for key, value in scheme.items():
            if key in COMMON or key in kind.potato_keys:
                if value is not None:
                    converted[key] = value
            elif key == "label_file" and labelled:
                converted["labels"] = self._label_file(path, value)
            elif key == "title" and not scheme.get("description"):
                converted["description"] = value
            else:
                dropped.append(str(key))
        if dropped:
            allowed = [*COMMON, *kind.potato_keys]
            self.notes.append(f"scheme {name!r}: " + ", ".join(
                key + "".join(f" (did you mean {close!r}?)" for close in difflib.get_close_matches(key, allowed, n=1))
                for key in dropped) + " not used here")
        if "name" in converted:
            converted["name"] = self._name(name, path)
        if "label_requirement" in converted:
            converted["label_requirement"] = _requirement(converted["label_requirement"])
        if "has_free_response" in converted:
            converted["has_free_response"] = bool(converted["has_free_response"])
        if "labels" in converted:
            converted["labels"] = self._labels(converted["labels"], name)
        found = kind.from_potato(converted, self)
        for number in range(len(found)):
            self.origin[("annotation_schemes", ours + number)] = path
        return found

    # What the type modules' translations ask of the importer (designs.schemes' from_potato).
    def scale(self, scale: dict[str, Any]) -> dict[str, Any]:
        converted: dict[str, Any] = {key: scale[key] for key in ("min", "max", "step", "min_label", "max_label")
                                     if key in scale}
        labels = scale.get("labels")
        if isinstance(labels, dict):
            for end in ("min", "max"):
                if labels.get(end) is not None:
                    converted.setdefault(f"{end}_label", str(labels[end]))
        return converted

    @staticmethod
    def option(option: Any) -> str:
        if isinstance(option, dict):
            return str(option.get("name") or option.get("text") or next(iter(option.values()), ""))
        return str(option)

    def _name(self, name: str, path: tuple) -> str:
        """Our name for a scheme: Potato's when it fits NAME, else one made to fit (and remembered, so that
        display_logic that names the old one still finds it)."""
        fitted = name
        if not re.match(NAME, name):
            fitted = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:58] or "scheme"
            if not fitted[0].isalpha():
                fitted = f"s_{fitted}"
            self.notes.append(f"scheme {name!r} is named {fitted!r} here (names are letters, digits, _ . -)")
        taken = set(self.names.values())
        unique, number = fitted, 2
        while unique in taken:
            unique, number = f"{fitted[:56]}_{number}", number + 1
        self.names.setdefault(name, unique)
        return unique

    def _labels(self, labels: Any, scheme: str) -> Any:
        if not isinstance(labels, list):
            return labels  # the model says what is wrong, at its line
        converted = []
        for label in labels:
            if isinstance(label, dict):
                dropped = [str(key) for key in label if key not in LABEL_KEYS]
                if dropped:
                    self.notes.append(f"scheme {scheme!r}: label keys {', '.join(sorted(set(dropped)))} not used")
                converted.append({key: value for key, value in label.items()
                                  if key in LABEL_KEYS and value is not None})
            else:
                converted.append(label)
        return converted

    def _label_file(self, path: tuple, value: Any) -> list[str]:
        try:
            text = _read(self.folder, self.raw, str(value))[1].decode("utf-8-sig")
        except FileNotFoundError:
            self.error((*path, "label_file"), f"cannot find {value}; upload it beside the config")
            return []
        except UnicodeDecodeError:
            self.error((*path, "label_file"), f"{value} is not UTF-8 text; save it as UTF-8")
            return []
        return [line.strip() for line in text.splitlines() if line.strip()]

    def _logic(self, logic: Any, path: tuple) -> Any:
        if not isinstance(logic, dict) or not isinstance(logic.get("show_when"), list):
            return logic  # the model names the problem
        conditions = []
        for number, condition in enumerate(logic["show_when"]):
            if not isinstance(condition, dict):
                conditions.append(condition)
                continue
            found = dict(condition)
            operator = str(found.get("operator", "equals"))
            if operator not in OPERATORS:
                self.error((*path, "display_logic", "show_when", number, "operator"),
                           f"operator {operator!r} cannot be checked here; use one of {', '.join(OPERATORS)}")
            else:
                found["operator"] = OPERATORS[operator]
            if "schema" in found:
                found["schema"] = self.names.get(str(found["schema"]), str(found["schema"]))
            for key in [key for key in found if key not in ("schema", "operator", "value")]:
                found.pop(key)
                self.notes.append(f"display_logic: {key} not used")
            conditions.append(found)
        return {key: value for key, value in {**logic, "show_when": conditions}.items()
                if key in ("show_when", "logic")}


def _records(raw: dict, lines: dict[tuple, int], name: str, folder: Folder, settings: Items,
             compared: set[str]) -> tuple[list[Record], list[str]]:
    """Every data file's records, in order; ids unique across the files. `compared`: the fields a pairwise or
    best-worst scheme compares."""
    files = raw.get("data_files")
    if isinstance(files, str | dict):
        files = [files]
    line = lines.get(("data_files",))
    where = f"{name}:{line}" if line else name
    if not files or not isinstance(files, list):
        return [], [f"{where}: data_files: is missing or empty; list the data files (JSON, JSON Lines, CSV, TSV)"]
    records: list[Record] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for number, entry in enumerate(files):
        at = f"{name}:{lines.get(('data_files', number), line)}"
        path, kind = (entry.get("path"), entry.get("format")) if isinstance(entry, dict) else (entry, None)
        if not path:
            errors.append(f"{at}: data_files.{number}: names no file; give a path")
            continue
        kind = str(kind).lower() if kind else None
        if kind is not None and kind not in FORMATS:
            errors.append(f"{at}: data_files.{number}: format {kind!r} is not one of {', '.join(FORMATS)}")
            continue
        try:
            relative, data = _read(folder, raw, str(path))
        except FileNotFoundError:
            errors.append(f"{at}: data_files.{number}: cannot find {_joined(raw, str(path))}; paths are relative "
                          f"to the config's folder and its task_dir")
            continue
        try:
            found = read_records(data, name=relative, settings=settings, format=kind)
        except ItemsError as error:
            errors.append(str(error))
            continue
        for record in found:
            if record.id in seen:
                errors.append(f"{relative}:{record.line}: the id {record.id!r} is used already in {seen[record.id]}; "
                              f"ids must be unique across the data files")
                break
            seen[record.id] = relative
        records += [_readable(record, settings.text_key, compared) for record in found]
    return records, errors


def _read(folder: Folder, raw: dict, path: str) -> tuple[str, bytes]:
    """(the path found, its bytes): under task_dir as Potato reads it, else beside the config (a task_dir
    written for the author's machine, such as an absolute path, does not stop the import)."""
    tried = [_joined(raw, path), posixpath.normpath(path.replace("\\", "/"))]
    for candidate in dict.fromkeys(tried):
        try:
            return candidate, folder.read(candidate)
        except FileNotFoundError:
            continue
    raise FileNotFoundError(path)


def _readable(record: Record, text_key: str, compared: set[str]) -> Record:
    """A record whose text is a list or mapping that no pairwise or best-worst scheme compares (Potato's
    list_as_text): its text is the entries, one a line."""
    value = record.fields.get(text_key)
    if record.text or text_key in compared or not isinstance(value, list | dict):
        return record
    lines = [f"{key}: {entry}" for key, entry in value.items()] if isinstance(value, dict) else map(str, value)
    return replace(record, text="\n".join(lines))


def _joined(raw: dict, path: str) -> str:
    """A path of the config resolved against task_dir (itself relative to the config's folder)."""
    task_dir = raw.get("task_dir")
    base = str(task_dir) if isinstance(task_dir, str) and task_dir.strip() else "."
    return posixpath.normpath(posixpath.join(base, path.replace("\\", "/")))


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _requirement(value: Any) -> dict[str, bool]:
    if isinstance(value, dict):
        return {"required": bool(value.get("required", False))}
    return {"required": bool(value)}
