"""Label Studio projects: a labeling config (XML) and its tasks as a design and its items, and a design's answers
as Label Studio tasks with annotations (the export format `labelstudio`). Django-free; nothing is written here.

The config is read as data (defusedxml: no entities, no DTDs), each tag with its line. Object tags become what the
page shows: the object the controls mark or ask about is the item's text, the others fields shown before or after
it. Each control tag is run by the scheme type that claims it (designs.schemes: `labelstudio_claims`,
`from_labelstudio`); its name, question (a Header just before it), `required` and `visibleWhen` are read here. What
is not carried over is named by tag, line and attribute in the report; what cannot run (media, a tag no type runs)
is an error at its line.
"""

from __future__ import annotations

import difflib
import html
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError, TreeBuilder
from xml.sax.saxutils import quoteattr

import yaml
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from designs import potato
from designs.aggregate import Annotator
from designs.answers import read_values
from designs.items import (
    GIVEN,
    MODEL,
    SUGGESTED,
    Given,
    ItemsError,
    Record,
    as_lines,
    highlighted,
    read_rows,
    unanswerable,
)
from designs.loader import DesignError, Problem, validate
from designs.schemes import SCHEME_TYPES
from designs.schemes import Record as SchemeRecord
from designs.schemes.base import NAME

# Tags that show data; `value="$field"` reads the task's data.field.
OBJECTS = ("Text", "HyperText", "Paragraphs", "Header", "Table", "List", "Markdown")
# How deep a config's tags may nest: Label Studio's own templates go five or six Views down; past this, reading
# it would recurse as deep (a config of a thousand nested Views was a server error).
MAX_DEPTH = 60
# A task field named inside an object's words, as Label Studio's parseValue finds one.
FIELD = re.compile(r"\$[A-Za-z_][\w.\[\]{}]*")
# Tags that only arrange the page (their styles are not carried over).
VISUAL = ("View", "Style", "Collapse", "Panel", "Filter", "Choice", "Label", "Relation", "Bucket")
# Label Studio's media objects and their controls: not for a text platform.
MEDIA = ("Image", "Audio", "AudioPlus", "Video", "TimeSeries", "TimeSeriesChannel", "Channel", "Pdf", "Vector",
         "Chat", "ChatMessage", "RectangleLabels", "Rectangle", "PolygonLabels", "Polygon", "EllipseLabels", "Ellipse",
         "KeyPointLabels", "KeyPoint", "BrushLabels", "Brush", "MagicWand", "VideoRectangle", "VideoVector",
         "VideoVectorLabels", "TimelineLabels", "TimeSeriesLabels", "BitmaskLabels", "Bitmask", "VectorLabels",
         "OcrLabels")
# Controls of text Label Studio has that no scheme type runs yet.
NOT_BUILT: dict[str, str] = {}  # text controls no type runs yet, by what they do
# Attributes every control may have, read here (the type reads its own).
COMMON = ("name", "toName", "required", "requiredMessage", "visibleWhen", "whenTagName", "whenChoiceValue",
          "whenLabelValue", "hotkey", "perRegion")
CONDITION = ("visibleWhen", "whenTagName", "whenChoiceValue", "whenLabelValue")  # when a control or View is shown
# Label Studio reads attribute names in any case (its own templates write showInline and showInLine, hotkey and
# hotKey): the names read here that are not all lower case, by the name they are read by; others are lowered.
CASED = {name.lower(): name for name in (
    "toName", "showInline", "perRegion", "maxSubmissions", "visibleWhen", "whenTagName", "whenChoiceValue",
    "whenLabelValue", "valueType", "maxRating", "nameKey", "textKey", "requiredMessage", "maxUsage",
    "showSubmitButton", "defaultValue")}
# A tag's required="true", its other attributes (quoted values whole) kept.
REQUIRED = re.compile(r'(<\w+(?:\s+[\w.:-]+=(?:"[^"]*"|\'[^\']*\'))*?)\s+required="true"')
# Objects whose task value is shown as text here and given back as it came (turns, markup), spans in it placed so.
KEPT = {"Paragraphs": "ParagraphLabels", "HyperText": "HyperTextLabels"}
SHOWN = ("Text", "HyperText", "Paragraphs", "Markdown", "Table", "List")  # objects a task's field is shown in


@dataclass
class Tag:
    """One tag of the config: its name, attributes, children and the line it starts on."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Tag] = field(default_factory=list)
    text: str = ""  # what the tag holds as text (<Header>Pick one</Header>)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Imported(potato.Imported):
    """One Label Studio project's import, as designs.potato.Imported is one Potato config's (the project is made
    from either the same way): the schemes its controls became, as the report names them, and its design's source
    headed by what was not carried over."""

    controls: list[dict[str, str]] = field(default_factory=list)
    sources: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def schemes(self) -> list[dict[str, str]]:
        """The schemes the config became, each with the controls it came from ("<Number> blame_1, blame_2, blame_3"
        for a share put together), or the config's controls where it became none."""
        made = [scheme for scheme in self.raw.get("annotation_schemes", []) if scheme.get("name") in self.sources]
        if not made:
            return self.controls
        return [{"name": scheme["name"], "type": scheme["annotation_type"],
                 "from": _came_from(scheme["name"], self.sources[scheme["name"]])} for scheme in made]

    def as_json(self) -> dict[str, Any]:
        found = {"config": self.config, "ok": self.ok, "items": len(self.records), "schemes": self.schemes(),
                 "ignored": self.ignored, "errors": self.errors}
        if self.given:  # the tasks came with annotations: how many, kept as whose answers
            found.update(annotations=len(self.given), annotators=len({given.annotator for given in self.given}))
        if self.predicted:  # and with predictions: how many, kept as which models' answers
            found.update(predictions=len(self.predicted),
                         models=sorted({given.annotator for given in self.predicted}))
        return found

    def source(self) -> str:
        """The design file the project became, as YAML, headed by where it came from."""
        head = [f"# Imported from the Label Studio config {Path(self.config).name}."]
        head += [f"# Not carried over: {ignored}" for ignored in self.ignored]
        head += [f"# {note}" for note in [*self.warnings, *self.notes]]
        return "\n".join(head) + "\n" + yaml.safe_dump(self.raw, sort_keys=False, allow_unicode=True, width=110)


def import_files(config: str, tasks: str | None, title: str = "") -> Imported:
    """The config at `config` and the tasks at `tasks` (JSON list of tasks or of data dicts, JSON Lines, CSV or
    TSV), as the person named them."""
    found = Imported(config=config)
    try:
        data = Path(config).read_bytes()
    except OSError as error:
        found.errors.append(f"{config}: cannot read it ({error.strerror}); check the path")
        return found
    task_data = None
    if tasks:
        try:
            task_data = Path(tasks).read_bytes()
        except OSError as error:
            found.errors.append(f"{tasks}: cannot read it ({error.strerror}); check the path")
            return found
    return import_project(data, name=config, tasks=task_data, tasks_name=tasks or "", title=title)


def import_project(config: bytes, *, name: str, tasks: bytes | None, tasks_name: str, title: str = "") -> Imported:
    """Translate a labeling config and read its tasks. Every problem is in `errors` as "<file>:<line>: <what>" (a
    task as "<file>: task <n>: ..."); nothing is written anywhere. A config has no title of its own: `title`, else
    the config's file name, names the study."""
    found = Imported(config=name)
    try:
        root = parse(config, name)
    except DesignError as error:
        found.errors = [str(problem) for problem in error.problems]
        return found
    translation = _Translation(root, name, title)
    found.raw, found.controls, found.sources = translation.design, translation.controls, translation.sources
    found.ignored, found.warnings, found.notes = translation.ignored, translation.warnings, translation.notes
    found.errors = list(translation.errors)
    if found.errors:
        return found
    try:  # read once: the choices some controls take from the tasks, then the items
        rows = read_rows(tasks, name=tasks_name, corpora=False) if tasks is not None else None
        if rows and _flattened(rows):
            rows = translation.unflattened(rows, tasks_name)
        if translation.task_choices_of:
            if rows is None:
                found.errors.append(f"{name}: its choices come from the tasks; give them with --tasks")
                return found
            translation.fill_task_choices(rows, tasks_name)
    except (ItemsError, ValueError) as error:
        found.errors.append(str(error))
        return found
    try:
        found.design = validate(translation.design, translation.lines, name=name)
    except DesignError as error:
        found.errors += [str(problem) for problem in error.problems]
        return found
    if rows is None:
        found.errors.append(f"{name}: no tasks; give them with --tasks (JSON, JSON Lines, CSV or TSV)")
        return found
    try:
        found.records = translation.records(rows, tasks_name, found.design)
        found.given, found.given_source = translation.given, "labelstudio"
        found.predicted = translation.predicted
    except (ItemsError, ValueError) as error:
        found.errors.append(str(error))
        return found
    problem = unanswerable(found.design, found.records)
    if problem:
        record, what = problem
        found.errors.append(f"{tasks_name}: task {record.line}: {what}")
    return found


# The keys Label Studio's JSON-MIN and CSV exports add to a task's data on each annotation's row (label-studio-sdk's
# converter: convert_to_json_min, exports/csv2.py), the answers beside them under their controls' names.
FLATTENED = ("annotator", "annotation_id", "created_at", "updated_at", "lead_time")


def _flattened(rows: list[tuple[int, Any]]) -> bool:
    """Rows of Label Studio's JSON-MIN or CSV export: one an annotation, each with every key those exports add."""
    return all(isinstance(row, dict) and "data" not in row and all(key in row for key in FLATTENED)
               for _, row in rows)


def _answer_cell(tag: str, value: Any) -> Any:
    """A control's answer in a flat export. A CSV export writes answers other than one choice as JSON, which the
    CSV reader reads as such (as it does a dialogue or a list a task field holds), but a text box's one text as it
    is: one that looked like JSON is its text again."""
    if tag == "TextArea" and not isinstance(value, dict | str):
        return json.dumps(value, ensure_ascii=False)
    return value


def _flat_results(control: str, tag: str, value: Any) -> list[dict[str, Any]]:
    """One control's answer as Label Studio's flat exports write it, as results: one choice or one text as itself,
    several as {"choices": [...]} or {"text": [...]}, anything else as the list of its results' values. Each region
    gets an id, for the per-region picks given back to it."""
    if isinstance(value, str):
        value = {"choices": [value]} if tag == "Choices" else {"text": [value]}
    entries = value if isinstance(value, list) else [value]
    return [{"from_name": control, "type": tag.lower(), "value": entry,
             **({"id": f"{control}-{place}"} if isinstance(entry, dict) and "start" in entry else {})}
            for place, entry in enumerate(entries)]


class _Lines(TreeBuilder):
    """An element tree builder that keeps the line each tag starts on (the parser tells it as it goes)."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: Any = None
        self.lines: list[int] = []

    def start(self, tag, attrs):
        self.lines.append(self.parser.parser.CurrentLineNumber)
        return super().start(tag, attrs)


def _control_tags() -> list[str]:
    """The Label Studio control tags the registered scheme types run, sorted."""
    return sorted({tag for kind in SCHEME_TYPES.in_order() for tag in kind.labelstudio_tags})


def parse(data: bytes, name: str) -> Tag:
    """The config's tags, each with its line; DesignError names the line of XML that cannot be read."""
    builder = _Lines()
    parser = DefusedXMLParser(target=builder, forbid_dtd=True)
    builder.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except ParseError as error:
        line, column = error.position
        reason = re.sub(r": line \d+, column \d+$", "", str(error))
        raise DesignError([Problem(name, line, "", f"malformed XML: {reason} (column {column + 1}); a labeling "
                                                   f"config is one <View> of well-formed tags")]) from None
    except DefusedXmlException as error:
        raise DesignError([Problem(name, None, "", f"refused: {type(error).__name__} (entities and DTDs are not "
                                                   f"read)")]) from None
    except (LookupError, ValueError) as error:
        # An XML declaration naming an encoding expat does not know, or a multi-byte one it cannot read.
        raise DesignError([Problem(name, 1, "", f"its XML declaration names an encoding this reader cannot read "
                                                f"({error}); save the config as UTF-8")]) from None
    lines = iter(builder.lines)
    # Tag names too are read in any case, as Label Studio reads them (<choices> is <Choices>).
    tags = {tag.lower(): tag for tag in (*OBJECTS, *VISUAL, *MEDIA, *_control_tags())}

    def tree(element, depth: int = 1) -> Tag:
        attrs = {CASED.get(key.lower(), key.lower()): value for key, value in element.attrib.items()}
        node = Tag(tags.get(element.tag.lower(), element.tag), attrs, next(lines), text=(element.text or "").strip())
        if depth > MAX_DEPTH:
            said = f"<{node.tag}> is {depth} tags deep; a labeling config nests a few Views, at most {MAX_DEPTH}: " \
                   f"write it flatter"
            raise DesignError([Problem(name, node.line, "", said)])
        node.children = [tree(child, depth + 1) for child in element]
        return node

    top = tree(root)
    if top.tag != "View":
        raise DesignError([Problem(name, top.line, "", f"the config's top tag is <{top.tag}>; a labeling config "
                                                       f"is one <View>")])
    return top


class _Translation:
    def __init__(self, root: Tag, name: str, title: str = ""):
        self.name = name
        self.title = title.strip()
        self.errors: list[str] = []
        self.ignored: list[str] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.lines: dict[tuple, int] = {}
        self.controls: list[dict[str, str]] = []
        self.sources: dict[str, list[tuple[str, str]]] = {}  # a scheme -> the controls it came from, (tag, name)
        self.tags = list(root.walk())
        self.objects = {tag.attrs["name"]: tag for tag in self.tags if tag.tag in OBJECTS and tag.attrs.get("name")}
        self.names: dict[str, int] = {}
        self.targets: dict[str, str] = {}  # scheme name -> the object its control names
        self.per_region: list[tuple[Tag, str | None]] = []
        self.task_choices_of: dict[str, tuple[Tag, str]] = {}  # a scheme -> its control and the task field listing
        self.pairs: dict[str, tuple[str, str]] = {}  # a pair field -> the two task fields it holds
        self.ranked: set[str] = set()  # task fields holding lists a control ranks
        self.taken: set[int] = set()  # the Headers a scheme put together took as its parts' (take_header)
        self.plain_choices: set[str] = set()  # task fields of choices an item holds as their values (a best-worst's)
        # The controls another control's visibleWhen names: they stay controls (a condition names one).
        self.conditioned = {tag.attrs["whenTagName"] for tag in self.tags if tag.attrs.get("whenTagName")}
        self.given: list[Given] = []  # the tasks' annotations, as answers of who gave them
        self.predicted: list[Given] = []  # the tasks' predictions, as answers of the models that gave them
        self._conditions_of_views(root)
        self.design = self._design(root)

    def at(self, tag: Tag, message: str) -> None:
        self.errors.append(f"{self.name}:{tag.line}: {message}")

    def header_above(self, name: str) -> tuple[int, str]:
        """The line of the control `name`, and the words of a Header just above the Header asking it (a grid's
        question above its first row's), or "" where there is none."""
        control = next(tag for tag in self.tags if tag.attrs.get("name") == name and tag.tag not in OBJECTS)
        place = self.tags.index(control)
        above = self.tags[place - 2] if place >= 2 and self.tags[place - 1].tag == "Header" else None
        said = _said(above) if above is not None and above.tag == "Header" else ""
        return control.line, "" if FIELD.search(said) else said

    def take_header(self, name: str, question: bool = False) -> None:
        """The Header asking the control `name` is a part's of a scheme put together (a range's end's), not the
        study's instructions; with `question`, the Header above it too (the whole scheme's question)."""
        place = next(place for place, tag in enumerate(self.tags)
                     if tag.attrs.get("name") == name and tag.tag not in OBJECTS)
        for above in range(place - 1, max(place - 1 - (2 if question else 1), -1), -1):
            if self.tags[above].tag != "Header":
                return
            self.taken.add(id(self.tags[above]))

    def put_together(self, name: str, parts: list[str]) -> None:
        """The scheme `name` is the schemes `parts` put together (a grid's rows, a range's ends, a share's parts):
        it came from their controls."""
        self.sources[name] = [source for part in parts for source in self.sources.pop(part)]

    def _conditions_of_views(self, root: Tag) -> None:
        """A <View visibleWhen=...> shows what it holds only when its condition holds (Label Studio's way to ask a
        TextArea on a condition): each control inside takes the condition as its own; one with a condition of its
        own keeps that one, and the View's is named in the report, as is a View showing objects (shown always)."""
        controls = set(_control_tags())
        for view in reversed(list(root.walk())):  # an inner View's condition before an outer one's
            if view.tag != "View" or not view.attrs.get("visibleWhen"):
                continue
            condition = {key: view.attrs[key] for key in CONDITION if key in view.attrs}
            held = [tag for tag in view.walk() if tag.tag in controls]
            for control in held:
                if control.attrs.get("visibleWhen"):
                    self.ignored.append(f"<View> visibleWhen={condition['visibleWhen']!r} (line {view.line}) around "
                                        f"<{control.tag} name={control.attrs.get('name', '')!r}>, which keeps its "
                                        f"own condition")
                else:
                    control.attrs.update(condition)
            shown = [tag for tag in view.walk() if tag.tag in OBJECTS and tag.tag != "Header"]
            if not held or shown:
                self.ignored.append(f"<View> visibleWhen={condition['visibleWhen']!r} (line {view.line}): what it "
                                    f"shows is shown always" + (" (its controls take the condition)" if held else ""))

    def ignore(self, control: Tag, attribute: str) -> None:
        """An attribute of a control that is not carried over: named in the report."""
        if attribute in control.attrs:
            self.ignored.append(f"<{control.tag} name={control.attrs.get('name', '')!r}> {attribute}="
                                f"{control.attrs[attribute]!r} (line {control.line})")

    # --- what a type asks of its control --------------------------------------------------------------------
    def children(self, control: Tag, tag: str, key: str = "value") -> list[tuple[Tag, str]]:
        """The control's children of one tag, each with its value (a Choice's alias is what Label Studio stores;
        a Bucket is known by its name)."""
        found = [(child, child.attrs.get("alias") or child.attrs.get(key, "")) for child in control.walk()
                 if child.tag == tag]
        kept: dict[str, Tag] = {}
        for child, value in found:
            if not value:
                self.at(child, f"<{tag}> has no {key}; give it {key}=\"...\"")
            elif value in kept:
                # Label Studio draws both and stores the same answer from either: one is shown here.
                self.warnings.append(f"<{tag} {key}={value!r}> (line {child.line}) repeats line "
                                     f"{kept[value].line}'s; it is shown once, the same answer either way")
            else:
                kept[value] = child
        return [(child, value) for value, child in kept.items()]

    def choices(self, control: Tag) -> list[dict[str, str]]:
        return [{"name": value, **({"key_value": child.attrs["hotkey"]} if child.attrs.get("hotkey") else {}),
                 **({"tooltip": child.attrs["hint"]} if child.attrs.get("hint") else {}),
                 **({"description": child.attrs["value"]} if child.attrs.get("alias") else {})}
                for child, value in self.children(control, "Choice")]

    def task_choices(self, control: Tag) -> dict[str, Any]:
        """A control that takes its choices from each task's data (value="$options"): each item shows its task's,
        and the labels are every task's, read with the tasks (`fill_task_choices`). {} for a control of its own
        choices."""
        value = control.attrs.get("value", "")
        if not value.startswith("$"):
            return {}
        self.task_choices_of[control.attrs.get("name", "")] = (control, value[1:])
        return {"dynamic_options": True, "dynamic_options_field": value[1:]}

    def fill_task_choices(self, rows: list[tuple[int, Any]], name: str) -> None:
        """The schemes whose choices each task gives, from every task's (their type's labelstudio_task_choices: a
        choice's labels, a best-worst's set size). ValueError names the task whose choices cannot be read, or one
        shown as something other than its value."""
        for scheme in self.design["annotation_schemes"]:
            if scheme.get("name") not in self.task_choices_of:
                continue
            control, field_name = self.task_choices_of[scheme["name"]]
            where = f"<Choices name={control.attrs.get('name', '')!r}> ({self.name}:{control.line})"
            every: list[list[str]] = []  # each task's choices
            for number, (line, row) in enumerate(rows, 1):
                values: list[str] = []
                task = f"{name}: task {number}" + (f" (line {line})" if line else "")
                found = row.get("data") if isinstance(row, dict) and isinstance(row.get("data"), dict) else row
                listed = found.get(field_name) if isinstance(found, dict) else None
                if not isinstance(listed, list):
                    raise ValueError(f"{task}: its {field_name} is not a list of choices, which {where} shows")
                for option in listed:
                    value = option.get("value") if isinstance(option, dict) else option
                    if isinstance(option, dict) and (option.get("html") or option.get("children")):
                        raise ValueError(f"{task}: the choice {value!r} of {field_name} is shown by its own html or "
                                         f"holds choices of its own, which is not built here; {where} runs choices "
                                         f"given by their value alone")
                    if value in (None, "") or isinstance(value, dict | list):
                        raise ValueError(f"{task}: a choice of {field_name} has no value; give each "
                                         f"{{\"value\": ...}}")
                    values.append(str(value))
                every.append(values)
            kind = SCHEME_TYPES.get(scheme["annotation_type"])
            try:
                self.notes.append(f"{where}: {kind.labelstudio_task_choices(scheme, every, name)}")
            except ValueError as error:
                raise ValueError(f"{error} ({where})") from None

    def tree(self, control: Tag, above: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        """A Taxonomy's nodes as paths, parents before children."""
        paths = []
        for child in control.children:
            if child.tag == "Choice" and (child.attrs.get("alias") or child.attrs.get("value")):
                path = (*above, child.attrs.get("alias") or child.attrs["value"])
                paths.append(path)
                paths += self.tree(child, path)
        return paths

    def integer(self, control: Tag, attribute: str, default: int, low: int, high: int) -> int:
        value = control.attrs.get(attribute)
        if value is None:
            return default
        if not value.strip().isdecimal() or not low <= int(value) <= high:
            self.at(control, f"{attribute}={value!r}: give a whole number from {low} to {high}")
            return default
        return int(value)

    def number(self, control: Tag, attribute: str) -> float | None:
        value = control.attrs.get(attribute)
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            self.at(control, f"{attribute}={value!r} is not a number")
            return None

    def list_of(self, control: Tag) -> str:
        """The item field holding the list a control ranks (its List object's $field); the list is then shown by
        the control, not on its own."""
        target = self.objects.get(control.attrs.get("toName", ""))
        field_name = target.attrs.get("value", "")[1:] if target is not None else ""
        if target is None or target.tag != "List" or not field_name:
            self.at(control, f"<{control.tag}> ranks the items of a <List> that shows a task field: toName names it")
            return "items"
        self.ranked.add(field_name)
        return field_name

    def pair_of(self, control: Tag) -> str:
        """The item field holding the two objects a control compares (its toName "left,right"), as a pair; the
        objects are then shown by the control, not on their own."""
        names = [name for name in control.attrs.get("toName", "").split(",") if name]
        fields = [self.objects[name].attrs["value"][1:] for name in names
                  if self.objects.get(name) is not None and self.objects[name].attrs.get("value", "").startswith("$")]
        if len(names) != 2 or len(fields) != 2 or not all(fields):
            self.at(control, f"<{control.tag}> compares two objects that show task fields: toName=\"left,right\"")
            return "pair"
        pair = f"{control.attrs.get('name', 'pair')}_pair"
        self.pairs[pair] = (fields[0], fields[1])
        return pair

    def side_by_side(self, name: str) -> str | None:
        """The pair field of the two objects the control `name` is about, as the export writes a pairwise scale: the
        control names an object `<stem>_left`, shown just before an object `<stem>_right`, each showing a task field
        and named by no other control; None where they are not so."""
        control = next((tag for tag in self.tags if tag.attrs.get("name") == name and tag.tag not in OBJECTS), None)
        left = self.objects.get(control.attrs.get("toName", "")) if control is not None else None
        place = self.tags.index(left) if left is not None else -1
        right = self.tags[place + 1] if 0 <= place < len(self.tags) - 1 else None
        stem = left.attrs["name"].removesuffix("_left") if left is not None else ""
        named = [target for tag in self.tags if tag.tag not in OBJECTS and tag is not control
                 for target in tag.attrs.get("toName", "").split(",")]
        if not (left is not None and right is not None and left.attrs["name"] == f"{stem}_left" and stem
                and right.attrs.get("name") == f"{stem}_right" and {left.tag, right.tag} <= set(SHOWN)
                and all(tag.attrs.get("value", "").startswith("$") for tag in (left, right))
                and not {left.attrs["name"], right.attrs["name"]} & set(named)):
            return None
        pair = f"{name}_pair"
        self.pairs[pair] = (left.attrs["value"][1:], right.attrs["value"][1:])
        return pair

    def object_of(self, control: Tag) -> Tag:
        return self.objects.get(control.attrs.get("toName", "").split(",")[0], control)

    def first_spans(self, control: Tag) -> str:
        spans = [tag.attrs.get("name", "") for tag in self.tags if tag.tag.endswith("Labels")]
        if not spans:
            self.at(control, "<Relations> links regions, and the config marks none: add a <Labels> on its text")
            return ""
        if len(spans) > 1:
            self.notes.append(f"<Relations> (line {control.line}) links the spans of {spans[0]!r}")
        return spans[0]

    # --- the design -------------------------------------------------------------------------------------------
    def _design(self, root: Tag) -> dict[str, Any]:
        controls = [tag for tag in self.tags if tag.tag not in OBJECTS and tag.tag not in VISUAL]
        for tag in self.tags:
            if tag.tag in ("Chat", "ChatMessage"):
                self.at(tag, "<Chat> has the annotator write the conversation (with a model's replies where it names "
                             "an llm), which is not built here; a conversation already had is shown with "
                             "<Paragraphs>")
            elif tag.tag in MEDIA:
                self.at(tag, f"<{tag.tag}> is a media tag; this platform shows text only (Text, HyperText, "
                             f"Paragraphs, Header, Table, List)")
            elif tag.tag in OBJECTS and tag.attrs.get("valueType") == "url":
                # Label Studio's browser fetches the text from where each task points; fetching pages named in an
                # uploaded file from the server is not something an import does.
                self.at(tag, f"<{tag.tag} valueType=\"url\"> shows the text at the address each task gives, "
                             f"which is not fetched here: put the text itself in the tasks and drop valueType")
            elif inside := _inside(tag):
                # Label Studio fills the field into the words on each task; shown apart, the words would be lost.
                self.at(tag, f"<{tag.tag}> shows {_said(tag)!r}: a task field inside other words, which is not "
                             f"built here; show the field on its own (value=\"{inside}\") and put the words in a "
                             f"<Header> before it")
        # What is said of a refused object is not said again of the controls about it.
        self.refused: set[str | None] = {tag.attrs.get("name") for tag in self.tags if tag.tag in MEDIA
                                         or tag.attrs.get("valueType") == "url" or _inside(tag)}
        main = self._main(controls)
        items = self._items(main)
        schemes: list[dict[str, Any]] = []
        header: Tag | None = None
        titled: dict[str, Tag] = {}  # task field -> the header just above the object that shows it
        # The objects a control shows by itself (a pair it compares, a List it ranks), and those passed since the
        # last header: a header above such objects asks the control that shows them, as the export writes it.
        shown_by = {name for control in controls for name in control.attrs.get("toName", "").split(",")
                    if "," in control.attrs.get("toName", "") or getattr(self.objects.get(name), "tag", "") == "List"}
        passed: set[str] = set()
        for tag in self.tags:
            # A header is the question of the control that comes next, or the title of the object showing a task
            # field that comes next (Label Studio draws it just above), with nothing shown between them.
            if tag.tag == "Header" and not FIELD.search(_said(tag)):
                header, passed = tag, set()
            elif tag.tag in OBJECTS:
                key = tag.attrs.get("value", "")[1:]
                if header is not None and tag.attrs.get("name") not in self.refused and self.fields.get(key) is tag:
                    titled[key] = header
                if tag.attrs.get("name") in shown_by:
                    passed.add(tag.attrs["name"])
                else:
                    header = None
            if tag not in controls or tag.tag in MEDIA:
                continue
            if not passed <= set(tag.attrs.get("toName", "").split(",")):
                header = None
            scheme = self._scheme(tag, _said(header) if header is not None else None, len(schemes))
            header, passed = None, set()
            if scheme is not None:
                schemes.append(scheme)
        if not schemes and not self.errors:  # said plainly, not as the design file's empty list of schemes
            known = _control_tags()
            self.at(root, f"the config has no control, so it asks nothing: add one naming an object by toName (one "
                          f"of {', '.join(known)})")
        self._regions(schemes)
        for kind in SCHEME_TYPES.in_order():
            kind.labelstudio_gather(schemes, self)
        self._paired(items)
        # Headers are the fields' titles where they tell two or more fields apart (Premise, Hypothesis), each field
        # shown on its own (a pair's or a list's objects are shown by their control); a header above one field of
        # several heads the study (the instructions).
        alone = [items["text_key"], *items["show"], *items["show_after"]] if items else []
        titled = {field: tag for field, tag in titled.items() if field in alone}
        if len(titled) < 2:
            titled = {}
        if titled:  # the page puts its own colon after a shown field's title ("Task: " is Task)
            items["titles"] = {field: _said(tag).strip().removesuffix(":").rstrip() for field, tag in titled.items()}
        for scheme in schemes:
            if "display_logic" in scheme:
                self._logic(scheme, schemes)
        # The headers no control asks by, and the fixed words an object shows (its value names no $field), are the
        # instructions, in the config's order.
        headers = [_text_of(_said(tag)) if tag.tag == "HyperText" else _said(tag) for tag in self.tags
                   if tag.tag in ("Header", "Text", "HyperText", "Markdown") and not FIELD.search(_said(tag))
                   and not any(_said(tag) in (scheme.get("description"), *scheme.get("options", ()))
                               for scheme in schemes)  # a question, or a grid's row
                   and not any(tag is title for title in titled.values()) and id(tag) not in self.taken]
        named = self.title or Path(self.name).stem.replace("_", " ").replace("-", " ")
        design: dict[str, Any] = {"title": named[:200] or "study",
                                  "instructions": "\n".join(header for header in headers if header),
                                  "items": items, "annotation_schemes": schemes,
                                  "hits": {"layout": "item", "order": "file"}}
        if not design["instructions"]:
            del design["instructions"]
        named_apart = {field: tag.attrs["name"] for field, tag in self.fields.items()
                       if tag.attrs.get("name") and tag.attrs["name"] != field}
        for pair, sides in self.pairs.items():  # the pairwise scheme's two objects (designs.schemes.pairwise)
            for side, field_name in zip(("left", "right"), sides, strict=True):
                named_apart[f"{pair}_{side}"] = self.fields[field_name].attrs.get("name", field_name)
        if named_apart:
            design["export"] = {"labelstudio_objects": named_apart}
        shown = {field: {"tag": tag.tag, **({key: tag.attrs.get(key, default) for key, default in (
            ("nameKey", "author"), ("textKey", "text"))} if tag.tag == "Paragraphs" else {})}
            for field, tag in self.fields.items() if tag.tag in KEPT}
        if shown:  # given back so, and spans in them as ParagraphLabels or HyperTextLabels
            design.setdefault("export", {})["labelstudio_shown"] = shown
        return design

    def _main(self, controls: list[Tag]) -> Tag | None:
        """The object the controls are about: the one a span control marks, else the one most of them name."""
        named = [self.objects.get(name) for control in controls
                 for name in control.attrs.get("toName", "").split(",") if name]
        for control in controls:
            if control.tag.endswith("Labels") and control.attrs.get("toName") in self.objects:
                return self.objects[control.attrs["toName"]]
        shown = [tag for tag in named if tag is not None and tag.tag in SHOWN]
        if shown:
            return max(shown, key=shown.count)
        return next((tag for tag in self.objects.values() if tag.tag in SHOWN), None)

    def _items(self, main: Tag | None) -> dict[str, Any]:
        self.fields: dict[str, Tag] = {}  # task field -> the object that shows it
        for tag in self.tags:
            value = tag.attrs.get("value", "")
            if tag.tag in OBJECTS and value.startswith("$"):
                self.fields.setdefault(value[1:], tag)
        self.main_tag = main
        self.main_field = main.attrs.get("value", "")[1:] if main is not None and main.attrs.get(
            "value", "").startswith("$") else ""
        if not self.main_field:
            if not self.refused:
                self.errors.append(f"{self.name}: no object shows a task field (value=\"$text\"); add a <Text "
                                   f"name=\"text\" value=\"$text\"/>")
            return {}
        order = list(self.fields)
        place = order.index(self.main_field)
        self.kinds = {name: tag.tag for name, tag in self.fields.items()}
        return {"id_key": "id", "text_key": self.main_field, "show": order[:place], "show_after": order[place + 1:]}

    def _paired(self, items: dict[str, Any]) -> None:
        """Objects a pairwise control compares are shown by it, not on their own; when one of them was to be the
        item's text, the pair is (as a pair of texts under a Potato text key is)."""
        paired = {name for pair in self.pairs.values() for name in pair}
        if not (paired or self.ranked) or not items:
            return
        for key in ("show", "show_after"):
            items[key] = [name for name in items[key] if name not in paired | self.ranked]
        if items["text_key"] in paired:
            items["text_key"] = self.main_field = next(iter(self.pairs))

    def _scheme(self, control: Tag, header: str | None, ours: int) -> dict[str, Any] | None:
        name = control.attrs.get("name", "")
        self.controls.append({"name": name, "type": control.tag})
        if control.tag in NOT_BUILT:
            self.at(control, f"<{control.tag}> ({NOT_BUILT[control.tag]}) is not built here yet")
            return None
        kind = next((kind for kind in SCHEME_TYPES.in_order() if kind.labelstudio_claims(control)), None)
        if kind is None:
            known = _control_tags()
            close = difflib.get_close_matches(control.tag, known, n=1)
            self.at(control, f"<{control.tag}> is not a tag this platform runs"
                             + (f"; did you mean <{close[0]}>?" if close else f"; it runs {', '.join(known)}"))
            return None
        if control.tag == "Relations":
            name = name or "relations"
        if not re.match(NAME, name):
            self.at(control, f"<{control.tag}> name={name!r}: a name starts with a letter and has letters, digits, "
                             f"_ . - (at most 60)")
            return None
        if name in self.names:
            self.at(control, f"the name {name!r} is used already on line {self.names[name]}; names must differ")
            return None
        self.names[name] = control.line
        for target in filter(None, control.attrs.get("toName", "").split(",")):
            if target in self.refused:
                return None
            if target not in self.objects:
                self.at(control, f"toName={target!r} names no object; the objects are "
                                 f"{', '.join(self.objects) or '(none)'}")
                return None
        if control.attrs.get("perRegion") == "true":
            self.per_region.append((control, header))
            return None
        try:
            own = kind.from_labelstudio(control, self)
        except ValueError as error:
            self.at(control, str(error))
            return None
        scheme = {"annotation_type": kind.name, "name": name, **({"description": header} if header else {}), **own}
        self.targets[name] = control.attrs.get("toName", "")
        labels = scheme.get("labels")
        if "sequential_key_binding" in kind.settings.model_fields and isinstance(labels, list) and not any(
                isinstance(label, dict) and label.get("key_value") for label in labels):
            # Label Studio numbers a control's choices 1, 2, … when none has a hotkey; here each numbered scheme
            # gets a row of the keyboard of its own, so no key does two things on one item.
            scheme["sequential_key_binding"] = True
        if control.attrs.get("required") == "true":
            scheme["label_requirement"] = {"required": True}
        if control.attrs.get("visibleWhen"):
            scheme["display_logic"] = control
        for attribute in ("requiredMessage", "hotkey"):
            self.ignore(control, attribute)
        self.lines[("annotation_schemes", ours)] = control.line
        self.sources[name] = [(control.tag, name)]
        return scheme

    def _regions(self, schemes: list[dict[str, Any]]) -> None:
        """Single choices asked of each region (perRegion) as the pick its span scheme asks of each span."""
        for control, header in self.per_region:
            target = control.attrs.get("toName", "")
            spans = next((scheme for scheme in schemes if self.targets.get(scheme["name"]) == target
                          and SCHEME_TYPES.get(scheme["annotation_type"]).marks_text), None)
            labels = [value for _, value in self.children(control, "Choice")]
            if spans is None or spans.get("attribute"):
                self.at(control, f"perRegion <{control.tag}> asks of each region of {target!r}, and no span scheme "
                                 f"(or a second one) marks it: mark it with one <Labels>, and ask one perRegion "
                                 f"<Choices>")
            elif control.tag != "Choices" or control.attrs.get("choice") == "multiple" or len(labels) < 2:
                self.at(control, f"perRegion <{control.tag}> runs here as one pick of two or more choices asked of "
                                 f"each span; make it a single <Choices>")
            else:
                spans["attribute"] = {"name": control.attrs["name"], "description": header or control.attrs["name"],
                                      "labels": labels}
                self.sources[spans["name"]].append((control.tag, control.attrs["name"]))
                self.notes.append(f"<Choices name={control.attrs['name']!r}> perRegion: a pick asked of each span "
                                  f"of {spans['name']!r}")

    def _logic(self, scheme: dict[str, Any], schemes: list[dict[str, Any]]) -> None:
        control: Tag = scheme.pop("display_logic")
        when, tag = control.attrs["visibleWhen"], control.attrs.get("whenTagName", "")
        names = [other["name"] for other in schemes]
        if tag not in names:
            self.at(control, f"visibleWhen={when!r} needs whenTagName naming a control; the controls are "
                             f"{', '.join(names)}")
            return
        values = [value.strip() for value in control.attrs.get("whenChoiceValue", "").split(",") if value.strip()]
        if when in ("choice-selected", "choice-unselected"):
            operator = "equals" if when == "choice-selected" else "not_equals"
            condition: dict[str, Any] = {"schema": tag, "operator": operator if values else
                                         ("answered" if when == "choice-selected" else "empty")}
            if values:
                condition["value"] = values if len(values) > 1 else values[0]
        elif when in ("region-selected", "no-region-selected") and not control.attrs.get("whenLabelValue"):
            condition = {"schema": tag, "operator": "answered" if when == "region-selected" else "empty"}
        else:
            self.ignored.append(f"<{control.tag} name={scheme['name']!r}> visibleWhen={when!r} (line "
                                f"{control.line}): shown always")
            return
        scheme["display_logic"] = {"show_when": [condition]}

    # --- the tasks --------------------------------------------------------------------------------------------
    def unflattened(self, rows: list[tuple[int, Any]], name: str) -> list[tuple[int, Any]]:
        """Label Studio's JSON-MIN or CSV export (a row an annotation: the task's data, its id, each control's
        answer under the control's name, who gave it and when) as the tasks it flattened, each with its
        annotations' results, so they are read as a JSON export's are. What those exports lose is named: the
        relations (Label Studio leaves them out), and per-region picks that cannot be given back their regions."""
        controls = {control["name"]: control["type"] for control in self.controls}
        picks = {control.attrs.get("name", ""): control.attrs.get("toName", "") for control, _ in self.per_region}
        tasks: dict[str, tuple[int, dict[str, Any]]] = {}
        for number, (line, row) in enumerate(rows, 1):
            where = f"{name}: row {number}" + (f" (line {line})" if line else "")
            # A CSV export names a field that is also a control's name "_data_<field>".
            data = {key.removeprefix("_data_"): value for key, value in row.items()
                    if key not in controls and key not in FLATTENED and key not in ("id", "agreement")}
            task_id = str(row.get("id") if row.get("id") not in (None, "") else number)
            task = tasks.setdefault(task_id, (line, {"id": task_id, "data": data, "annotations": []}))[1]
            given = {control: _answer_cell(controls[control], value) for control, value in row.items()
                     if control in controls and value not in (None, "")}
            results = [result for control, value in given.items() if control not in picks
                       for result in _flat_results(control, controls[control], value)]
            for control, value in given.items():
                if control in picks:
                    found = self._region_picks(control, value, results, picks[control])
                    if found is None:
                        self.warnings.append(f"{where}: {control}: the export keeps each region's pick without its "
                                             f"region, and the picks ({len(value) if isinstance(value, list) else 1}) "
                                             f"are not one a region; left out (export JSON from Label Studio to "
                                             f"bring them)")
                    results += found or []
            if not results and row["annotation_id"] in (None, ""):
                continue  # a task nobody annotated
            by = row["annotator"]
            task["annotations"].append({"id": row["annotation_id"], "result": results, "created_at": row["created_at"],
                                        "completed_by": int(by) if str(by).isdecimal() else by})
        if any(control == "Relations" for control in controls.values()):
            self.notes.append(f"{name} is Label Studio's JSON-MIN or CSV export, which carries no relations: export "
                              f"JSON to bring them")
        self.notes.append(f"{name}: read as Label Studio's JSON-MIN or CSV export ({len(rows)} rows, "
                          f"{len(tasks)} tasks)")
        return list(tasks.values())

    def _region_picks(self, control: str, value: Any, results: list[dict], target: str) -> list[dict] | None:
        """A per-region control's picks, which those exports write as bare choices in the order of the regions
        they were asked of (a region's results together, as Label Studio keeps them): given to the regions of the
        object's spans in turn when there is one a region, else None."""
        regions = [result for result in results if "id" in result and self.targets.get(result["from_name"]) == target]
        chosen = value if isinstance(value, list) else [value]
        if len(chosen) != len(regions) or not all(isinstance(pick, str) for pick in chosen):
            return None
        return [{"from_name": control, "type": "choices", "id": region["id"], "value": {"choices": [pick]}}
                for region, pick in zip(regions, chosen, strict=True)]

    def records(self, rows: list[tuple[int, Any]], name: str, design: Any) -> list[Record]:
        """The tasks as items: a task's data (or a bare data dict, or a CSV row) its fields, its id the task's id
        (else its number); a dialogue shown one turn a line; HTML shown as its text. Every $field an object shows
        must be in every task. A task's prediction (its best scored) is the item's suggestion, kept apart from the
        answers (SUGGESTED)."""
        records: list[Record] = []
        seen: dict[str, int] = {}
        for number, (line, row) in enumerate(rows, 1):
            where = f"{name}: task {number}" + (f" (line {line})" if line else "")
            if not isinstance(row, dict):
                raise ValueError(f"{where}: is a {type(row).__name__}; a task is an object with its data")
            found = row["data"] if isinstance(row.get("data"), dict) else row
            missing = [key for key in self.fields if key not in found]
            if missing:
                tag = self.fields[missing[0]]
                raise ValueError(f"{where}: has no field {missing[0]!r}, which <{tag.tag} name="
                                 f"{tag.attrs.get('name', '')!r}> shows ({self.name}:{tag.line}: "
                                 f"value=\"${missing[0]}\"); its fields are {', '.join(map(str, found)) or '(none)'}")
            # The item's own id where its data has one (as this platform's export writes it), else the task's.
            task_id = str(found.get("id") if found.get("id") is not None else row.get("id", number))
            if task_id in seen:
                raise ValueError(f"{where}: the id {task_id!r} is task {seen[task_id]}'s too; ids must be unique")
            seen[task_id] = number
            fields = {key: self._shown(key, value) for key, value in found.items()}
            for key, value in fields.items():
                if self.kinds.get(key) == "List" and isinstance(value, list):
                    blank = next((entry for entry in value if isinstance(entry, dict) and not any(
                        str(entry.get(part) or "").strip() for part in ("title", "body", "text"))), None)
                    if blank is not None:
                        markup = "; its html is markup without text, an image?" if blank.get("html") else ""
                        raise ValueError(f"{where}: {key} entry {blank.get('id', '')!r} has no words to show (no "
                                         f"title, body or text{markup}); this platform shows text: give it a "
                                         f"title or a body")
            given = {key: value for key, value in found.items()
                     if (self.kinds.get(key) in KEPT and isinstance(value, list if self.kinds[key] == "Paragraphs"
                                                                   else str))
                     or (self.kinds.get(key) == "List" and _has_html(value))}
            if given:
                fields[GIVEN] = given
            fields.update((pair, [found[left], found[right]]) for pair, (left, right) in self.pairs.items())
            # A pair or a ranked list that is the item's text is its field too, and the text is empty.
            text = "" if self.main_field in self.pairs or self.main_field in self.ranked else fields.pop(
                self.main_field)
            text = text if isinstance(text, str) else as_lines(text)
            record = Record(id=task_id, text=text, fields=fields, line=number, file=name)
            places = self._places(found.get(self.main_field), text)
            self._predictions(design, row, record, places, where)
            self._annotations(design, row, record, places, where)
            records.append(record)
        return records

    def _predictions(self, design: Any, row: dict, record: Record, places: _Places, where: str) -> None:
        """A task's predictions: the best scored is the item's suggestion (SUGGESTED); each model's best is that
        model's answers (`predicted`, stored as a language model's are), to be measured against the crowd. A score
        from 0 to 1 is the answers' confidence, as a model run's is."""
        predictions = sorted((entry for entry in _listed(row, where, "predictions")
                              if isinstance(entry.get("result"), list)),
                             key=lambda entry: _score(entry.get("score")), reverse=True)
        models: set[str] = set()
        read: list[Given] = []
        for number, prediction in enumerate(predictions):
            model = str(prediction.get("model_version") or "a model")[:200]
            if model in models:
                continue  # a lower-scored prediction of a model already read
            models.add(model)
            answers = self._answers(design, prediction["result"], record, places, f"{where}: the prediction's")
            if not answers:
                continue
            score = prediction.get("score")
            if number == 0:
                record.fields[SUGGESTED] = {"model": model, "score": score, "answers": answers}
            sure = isinstance(score, int | float) and not isinstance(score, bool) and 0 <= score <= 1
            read.append(Given(record.id, model, answers, _when(prediction.get("created_at")),
                              {"score": score, **({"confidence": dict.fromkeys(answers, score)} if sure else {})}))
        # The best scored is stored last: the model that answered last is the one a command means by default.
        self.predicted += reversed(read)

    def _annotations(self, design: Any, row: dict, record: Record, places: _Places, where: str) -> None:
        """A task's annotations as the answers of the annotators who gave them (`given`): each named by its meta's
        annotators (this platform's export), else by completed_by (an email, else a user id), else as the task's
        annotation it is; a cancelled (skipped) one is no answer."""
        # Label Studio before 1.0 exported them as "completions" (its converter still reads both).
        annotations = _listed(row, where, "annotations", "completions")
        meta = row.get("meta")
        names = meta.get("annotators") if isinstance(meta, dict) else None
        names = names if isinstance(names, list) else []
        named: set[str] = set()
        for number, annotation in enumerate(annotations, 1):
            said = f"{where}: annotation {number}"
            if annotation.get("was_cancelled"):
                continue
            if not isinstance(annotation.get("result"), list):
                self.warnings.append(f"{said}: has no result list; left out")
                continue
            by = annotation.get("completed_by")
            by = by.get("email") or by.get("id") if isinstance(by, dict) else by
            who = str(names[number - 1]) if len(names) == len(annotations) and names[number - 1] else (
                f"user {by}" if isinstance(by, int) else str(by or f"task {record.id}, annotation {number}"))
            if who in named:
                self.warnings.append(f"{said}: {who} annotated this task before; the first annotation is kept")
                continue
            named.add(who)
            answers = self._answers(design, annotation["result"], record, places, f"{said}'s")
            if answers:
                self.given.append(Given(record.id, who, answers, _when(annotation.get("created_at"))))

    def _answers(self, design: Any, given: list, record: Record, places: _Places, where: str) -> dict[str, Any]:
        """Label Studio results (a prediction's or an annotation's) as the answers a form would send: each
        control's results read by its scheme's type (spans first, for the relations that name them) and checked as
        the form's are; one that does not fit is left out and named. Spans of dialogue turns and of HTML are moved
        onto the item's text first."""
        results: dict[str, list[dict]] = {}
        for number, result in enumerate(given, 1):
            # A result is an object whose value (a relation has none) is one too, named by its control.
            if not (isinstance(result, dict) and isinstance(result.get("value", {}), dict)
                    and isinstance(result.get("from_name", ""), str)):
                self.warnings.append(f"{where} result {number} is not a Label Studio result (an object naming its "
                                     f"control in from_name, its value an object); left out")
                continue
            try:
                result = _on_text(result, record.text, places)
            except ValueError as problem:
                self.warnings.append(f"{where} {result.get('from_name')}: {problem}; left out")
                continue
            results.setdefault(result.get("from_name") or ("" if result.get("type") == "relation" else "?"),
                               []).append(result)
        regions: dict[str, Any] = {}
        values: dict[str, Any] = {}
        ordered = sorted(design.annotation_schemes, key=lambda scheme: not SCHEME_TYPES.of(scheme).marks_text)
        for scheme in ordered:
            kind = SCHEME_TYPES.of(scheme)
            found = [result for name in kind.labelstudio_names(scheme) for result in results.get(name, [])]
            if not found:
                continue
            try:
                values[scheme.name] = kind.from_labelstudio_results(scheme, found, regions)
            except (KeyError, TypeError, ValueError, AttributeError) as problem:
                self.warnings.append(f"{where} {scheme.name} does not fit ({problem}); left out")
        answers, problems = read_values(design, SchemeRecord(id=record.id, text=record.text, fields=record.fields),
                                        values)
        self.warnings += [f"{where} {name} does not fit ({problem}); left out" for name, problem in problems]
        return answers

    def _places(self, raw: Any, text: str) -> _Places:
        """Where the task's dialogue turns (their words' start and end) or the text nodes of its HTML (by XPath and
        offset) fall in the item's text, for placing the spans Label Studio gives in them; found once a task."""
        kind = self.kinds.get(self.main_field)
        if kind == "Paragraphs" and isinstance(raw, list):
            attrs = self.main_tag.attrs if self.main_tag is not None else {}
            return _Places(turns=_turn_places(raw, attrs.get("nameKey", "author"), attrs.get("textKey", "text")))
        if kind == "HyperText" and isinstance(raw, str):
            shown, nodes = _html_text(raw)
            if shown == text:
                return _Places(nodes={node: index for index, node in enumerate(nodes) if node})
        return _Places()

    def _shown(self, key: str, value: Any) -> Any:
        if key in self.plain_choices and isinstance(value, list):
            return [entry.get("value") if isinstance(entry, dict) else entry for entry in value]
        kind = self.kinds.get(key)
        if kind == "List" and isinstance(value, list):
            # An entry shown by its html alone is read as that markup's text (never the markup).
            return [{**entry, "body": _text_of(str(entry["html"]))} if isinstance(entry, dict) and entry.get("html")
                    and not (entry.get("body") or entry.get("text")) else entry for entry in value]
        if kind == "HyperText" and isinstance(value, str):
            return _text_of(value)  # sanitised: its text, never its markup
        if kind == "Paragraphs" and isinstance(value, list):
            attrs = self.fields[key].attrs
            return "\n".join(_turn_line(turn, attrs.get("nameKey", "author"), attrs.get("textKey", "text"))
                             for turn in value)
        return value


@dataclass(frozen=True)
class _Places:
    turns: list[tuple[int, int]] = field(default_factory=list)  # each turn's words, start and end in the text
    nodes: dict[tuple[Any, int], int] = field(default_factory=dict)  # (XPath, offset) -> a character of the text


def _on_text(result: dict, text: str, places: _Places) -> dict:
    """A span of dialogue turns (a turn and an offset in it) or of HTML (its text) as a span of the item's text
    (character offsets, end exclusive), which shows the dialogue one turn a line and the HTML as its text."""
    kind, value = result.get("type"), result.get("value") or {}
    if kind == "paragraphlabels":
        def at(turn: Any, offset: Any) -> int:
            index = int(turn)
            if not 0 <= index < len(places.turns):
                raise ValueError(f"its turn {turn!r} is not one of the dialogue's {len(places.turns)}")
            return places.turns[index][0] + int(offset)

        start, end = at(value.get("start"), value.get("startOffset", 0)), at(value.get("end"),
                                                                             value.get("endOffset", 0))
        labels = value.get("paragraphlabels")
    elif kind == "hypertextlabels":
        # Placed by its XPaths and offsets in the markup's text nodes, where they name characters of the text;
        # else its text is found in the HTML's text (the occurrence nearest where its global offsets say).
        begins, ends = _offset(value.get("startOffset")), _offset(value.get("endOffset"))
        first = places.nodes.get((value.get("start"), begins)) if begins is not None else None
        last = places.nodes.get((value.get("end"), ends - 1)) if ends is not None else None
        marked = str(value.get("text") or "")
        if first is not None and last is not None and first <= last:
            start, end = first, last + 1
        else:
            occurs = [found.start() for found in re.finditer(re.escape(marked), text)] if marked else []
            if not occurs:
                raise ValueError(f"its text {marked[:40]!r} is not in the HTML's text")
            near = (value.get("globalOffsets") or {}).get("start", 0) if isinstance(
                value.get("globalOffsets"), dict) else 0
            start = min(occurs, key=lambda place: abs(place - _score(near)))
            end = start + len(marked)
        labels = value.get("hypertextlabels")
    else:
        return result
    if not 0 <= start < end <= len(text):
        raise ValueError(f"its span {start}..{end} is outside the text")
    return {**result, "type": "labels", "value": {**value, "start": start, "end": end, "text": text[start:end],
                                                  "labels": labels or []}}


def _listed(row: dict, where: str, *keys: str) -> list[dict]:
    """A task's predictions or annotations: the objects of the list under the first of `keys` that holds any."""
    key = next((key for key in keys if row.get(key)), keys[0])
    found = row.get(key) or []
    if not isinstance(found, list):
        raise ValueError(f"{where}: its {key} are a {type(found).__name__}; Label Studio gives a list of them")
    return [entry for entry in found if isinstance(entry, dict)]


def _came_from(name: str, sources: list[tuple[str, str]]) -> str:
    """The controls a scheme came from, by tag: "<Choices>" for one of the scheme's own name, "<Number> blame_1,
    blame_2" for parts put together, "<Labels> ner, <Choices> kind" for a span pick asked of each region."""
    if sources == [(sources[0][0], name)]:
        return f"<{sources[0][0]}>"
    return ", ".join(f"<{tag}> " + ", ".join(part for _, part in run)
                     for tag, run in itertools.groupby(sources, lambda source: source[0]))


def _said(header: Tag) -> str:
    """A Header's words: its value, or the text it holds."""
    return header.attrs.get("value") or header.text


def _inside(tag: Tag) -> str:
    """The task field an object's words name inside them ("Post: $text"), or "" (its value is one field, or none)."""
    said = _said(tag)
    found = FIELD.search(said) if tag.tag in OBJECTS and not said.startswith("$") else None
    return found.group() if found else ""


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _offset(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


# Tags a line break is put before (their text starts a line), and tags that hold nothing.
BREAKS = ("br", "p", "div", "li", "tr")
VOID = ("br", "img", "hr", "input", "meta", "link", "wbr", "area", "base", "col", "embed", "source", "track")


class _Nodes(HTMLParser):
    """HTML's text nodes, each with its XPath from the markup's top (as Label Studio names a place in a HyperText:
    /p[2]/b[1]/text()[1]), scripts and styles left out, a line break before each block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, str, Counter[str]]] = [("", "", Counter())]  # (tag, path, children counted)
        self.pieces: list[tuple[str, str | None]] = []  # (text, its node's XPath; None for a break put in)
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        _, path, counted = self.open[-1]
        counted[tag] += 1
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag in BREAKS:
            self.pieces.append(("\n", None))
        if tag not in VOID:
            self.open.append((tag, f"{path}/{tag}[{counted[tag]}]", Counter()))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skipping = max(0, self.skipping - 1)
        depth = next((depth for depth in range(len(self.open) - 1, 0, -1) if self.open[depth][0] == tag), None)
        if depth is not None:  # an end tag that closes nothing open is passed over, as a browser does
            del self.open[depth:]

    def handle_data(self, data):
        _, path, counted = self.open[-1]
        counted["text()"] += 1
        if not self.skipping:
            self.pieces.append((data, f"{path}/text()[{counted['text()']}]"))


def _has_html(entries: Any) -> bool:
    """Whether a List's entries (a task's value) show any entry by its html, which is then kept to be given back."""
    return isinstance(entries, list) and any(isinstance(entry, dict) and entry.get("html") for entry in entries)


def _html_text(markup: str) -> tuple[str, list[tuple[str, int] | None]]:
    """HTML as the text a person reads in it (blank lines closed up, its ends trimmed), with each character's place
    in the markup: its text node's XPath and offset there (None for a line break put in)."""
    reader = _Nodes()
    reader.feed(markup)
    reader.close()
    raw = "".join(text for text, _ in reader.pieces)
    places: list[tuple[str, int] | None] = [
        (path, at) if path else None for text, path in reader.pieces for at in range(len(text))]
    text, nodes, done = [], [], 0
    for gap in re.finditer(r"\n\s*\n+", raw):
        text += [raw[done:gap.start()], "\n"]
        nodes += [*places[done:gap.start()], None]
        done = gap.end()
    text.append(raw[done:])
    nodes += places[done:]
    joined = "".join(text)
    lead = len(joined) - len(joined.lstrip())
    kept = len(joined.rstrip()) - lead
    return joined[lead:lead + kept], nodes[lead:lead + kept]


def _text_of(markup: str) -> str:
    """HTML as the text a person reads in it (scripts and styles left out; each entity read once, as a browser
    reads it)."""
    return _html_text(markup)[0]


# --- export -----------------------------------------------------------------------------------------------------

def config_of(design: Any, stage: str = "") -> tuple[str, str, list[str], list[str]]:
    """The design as a Label Studio labeling config: (the XML, the name of the object its controls name, the schemes
    Label Studio has no control for, whose answers are left out, and those it shows always, their display logic
    having no Label Studio form). The item's text is a Text object named by its field (HyperText where the page
    marks a highlight in it), and each field the page shows is one too, in the page's order, then the item's own
    instruction (items.prompt_key) as a Header; what a control compares or orders (a pair, a list) is shown by
    objects of its own, just before it. A stage's config asks what its page asks."""
    items = design.items
    names = {scheme.name for scheme in design.annotation_schemes}
    called = design.export.labelstudio_objects  # the project's own object names, where it came from Label Studio
    asked = asked_schemes(design, stage)
    own = {scheme.name: SCHEME_TYPES.of(scheme).labelstudio_objects(scheme) for scheme in asked}
    covered = _covered(asked)

    def named(field: str) -> str:  # Label Studio refuses a config whose names repeat: a field named as a scheme
        return called.get(field) or (field if field not in names else f"{field}_text")

    main = named(items.text_key)
    if items.text_key in covered:
        main = next(called.get(name, name) for objects in own.values() for _, name in objects[:1])
    objects = [*((named(field), field) for field in items.show if field not in covered),
               *([(main, items.text_key)] if items.text_key not in covered else []),
               *((named(field), field) for field in items.show_after if field not in covered)]
    shown = _shown(design, asked)
    parts = [f"<Header value={quoteattr(design.instructions)}/>"] if design.instructions else []
    for name, key in objects:  # a field's title is a header just above it, as the import reads one
        parts += [f"<Header value={quoteattr(items.titles[key])}/>"] if key in items.titles else []
        parts.append(_object(name, key, shown.get(key, {})))
    if _prompt_key(design):  # the page shows it above the questions
        parts.append(f"<Header value={quoteattr('$' + items.prompt_key)}/>")
    controls: dict[str, str] = {}
    left_out = []
    for scheme in asked:
        kind = SCHEME_TYPES.of(scheme)
        # A control of objects of its own names them (a Ranker its List, a Pairwise "left,right"); the others name
        # the item's text.
        target = ",".join(called.get(field, field) for _, field in own[scheme.name]) or main
        control = kind.labelstudio_control(scheme, target) if kind.answers else ""
        if control and kind.marks_text and items.text_key in shown and target == main:
            control = re.sub(r"<(/?)Labels\b", rf"<\1{KEPT[shown[items.text_key]['tag']]}", control)
        if control:
            controls[scheme.name] = control
        elif kind.answers:
            left_out.append(scheme.name)
    always = []
    for scheme in asked:
        if scheme.name not in controls:
            continue
        control = controls[scheme.name]
        # Shown when another answer says so: in a View with Label Studio's visibleWhen (which it honours on a View,
        # not on a TextArea), its question too; where Label Studio has no such condition, shown always and not
        # required (it would ask for an answer the page here does not).
        when = _visible_when(scheme.display_logic, controls) if scheme.display_logic is not None else None
        if scheme.display_logic is not None and when is None:
            always.append(scheme.name)
            control = REQUIRED.sub(r"\1", control)  # each tag's (a grid has a control a row)
        question = SCHEME_TYPES.of(scheme).labelstudio_question(scheme)
        asks = [f"<Header value={quoteattr(question)}/>"] if question else []
        asks += [f"<{tag} name={quoteattr(called.get(field, field))} value={quoteattr('$' + field)}/>"
                 for tag, field in own[scheme.name]]
        asks.append(control)
        if when is not None:
            asks = ["<View" + "".join(f" {key}={quoteattr(value)}" for key, value in when.items()) + ">"
                    + "".join(asks) + "</View>"]
        parts += asks
    return "<View>\n  " + "\n  ".join(parts) + "\n</View>\n", main, left_out, always


def _visible_when(logic: Any, controls: dict[str, str]) -> dict[str, str] | None:
    """Display logic as Label Studio's visibleWhen attributes (as the import reads them back), or None where Label
    Studio has no such form: more than one condition, or one on a scheme that is not a pick (Choices) or spans
    (Labels) in this config, or a test it cannot make (greater than, contains, a range)."""
    if len(logic.show_when) != 1:
        return None
    condition = logic.show_when[0]
    opening = re.match(r"<(\w+)", controls.get(condition.schema_, ""))
    tag = opening.group(1) if opening else ""
    values = condition.value if isinstance(condition.value, list) else [] if condition.value is None else [
        condition.value]
    found = {"whenTagName": condition.schema_}
    if tag == "Choices" and condition.operator in ("equals", "not_equals") and values:
        return {"visibleWhen": "choice-selected" if condition.operator == "equals" else "choice-unselected",
                **found, "whenChoiceValue": ",".join(map(str, values))}
    if tag == "Choices" and condition.operator in ("answered", "empty"):
        return {"visibleWhen": "choice-selected" if condition.operator == "answered" else "choice-unselected", **found}
    if tag.endswith("Labels") and condition.operator in ("answered", "empty"):
        return {"visibleWhen": "region-selected" if condition.operator == "answered" else "no-region-selected",
                **found}
    return None


def asked_schemes(design: Any, stage: str) -> list[Any]:
    """The schemes a page of the design asks: the stage's, or all."""
    named = design.stage_schemes(stage)
    return [scheme for scheme in design.annotation_schemes if named is None or scheme.name in named]


def _marks_highlight(design: Any, schemes: list[Any]) -> bool:
    """Whether the item's text goes out as HyperText with its highlight (items.highlight_key) in <mark>, as the page
    marks it: not where the imported project showed it in an object of its own, nor where an asked scheme marks
    spans in it (their places stay Text's offsets)."""
    items = design.items
    return bool(items.highlight_key) and items.text_key not in design.export.labelstudio_shown and not any(
        SCHEME_TYPES.of(scheme).marks_text for scheme in schemes)


def _shown(design: Any, schemes: list[Any]) -> dict[str, dict[str, str]]:
    """The objects fields are shown in other than Text: the imported project's (labelstudio_shown), and HyperText
    for a text whose highlight is marked."""
    shown = design.export.labelstudio_shown
    return {**shown, design.items.text_key: {"tag": "HyperText"}} if _marks_highlight(design, schemes) else shown


def _marked_up(record: Any, settings: Any) -> str:
    """An item's text as HTML with its highlight in <mark> (its line breaks <br/>)."""
    pieces = highlighted(record, settings) or (record.text, "", "")
    before, marked, after = (html.escape(piece, quote=False).replace("\n", "<br/>") for piece in pieces)
    return before + (f"<mark>{marked}</mark>" if marked else "") + after


def _prompt_key(design: Any) -> str | None:
    """The field of the item's own instruction, where it is not shown as a field already."""
    items = design.items
    return items.prompt_key if items.prompt_key not in (items.text_key, *items.show, *items.show_after) else None


def _covered(schemes: list[Any]) -> set[str | None]:
    """The fields a control shows by objects of its own (a pair, a list), not shown again as text."""
    return {getattr(scheme, "items_key", None) for scheme in schemes
            if SCHEME_TYPES.of(scheme).labelstudio_objects(scheme)}


def _object(name: str, field: str, shown: dict[str, str]) -> str:
    """The object a field is shown in: a Text, or the Paragraphs or HyperText the imported project showed it in."""
    if shown.get("tag") == "Paragraphs":
        return (f"<Paragraphs name={quoteattr(name)} value={quoteattr('$' + field)} layout=\"dialogue\" "
                f"nameKey={quoteattr(shown['nameKey'])} textKey={quoteattr(shown['textKey'])}/>")
    return f"<{shown.get('tag', 'Text')} name={quoteattr(name)} value={quoteattr('$' + field)}/>"


def tasks_of(design: Any, items: Any, to_name: str, scores: dict[tuple[str, str], Any] | None = None,
             stage: str = "") -> Iterator[dict[str, Any]]:
    """Each item as a Label Studio task: its data (its id, text and fields), one annotation per annotator, each
    answer in Label Studio's result shapes, and the annotators' pseudonyms (W1, W2, … in the batch) in its meta; a
    language model's answers as its prediction, with the score `scores` gives it ({(record id, model): score}).
    `items` yields (record, [Answer])."""
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    called = design.export.labelstudio_objects
    people: dict[Any, int] = {}  # an annotator's number, in the order they are met: no account's id goes out
    asked = asked_schemes(design, stage)
    covered = _covered(asked)
    texts = [field for field in (design.items.text_key, *design.items.show, *design.items.show_after,
                                 *filter(None, [_prompt_key(design)])) if field not in covered]
    marking = _marks_highlight(design, asked)
    for number, (record, answers) in enumerate(items, 1):
        by_worker: dict[Any, dict[str, Any]] = {}
        for answer in answers:
            by_worker.setdefault(answer.worker, {})[answer.scheme] = answer.value
        annotations: list[dict[str, Any]] = []
        annotators: list[str] = []
        predictions: list[dict[str, Any]] = []
        placed = _placing(design, record)
        for worker, given in by_worker.items():
            results = _results(schemes, given, to_name, called, placed)
            if isinstance(worker, Annotator) and worker.source == MODEL:
                # A language model's answers go back as its prediction (a pre-annotation there), not a person's.
                score = (scores or {}).get((record.id, worker.name))
                predictions.append({"model_version": worker.name, "result": results,
                                    **({"score": score} if isinstance(score, int | float) else {})})
                continue
            annotations.append({"id": len(annotations) + 1, "result": results})
            # An outside annotator goes back under their own name (the tool they worked in is this one, or will be).
            annotators.append(worker.name if isinstance(worker, Annotator) else
                              f"W{people.setdefault(worker, len(people) + 1)}")
        # Label Studio takes completed_by only for its own accounts (an unknown one refuses the whole import), so the
        # annotations come in as the importing user's; who gave each is in the task's meta, in their order.
        fields = dict(record.fields)
        suggested = fields.pop(SUGGESTED, None)
        came = fields.pop(GIVEN, None)
        # A field the config shows that the item lacks (a later stage's, in an earlier stage's task) is empty:
        # Label Studio refuses a task without every field its config names. A list or mapping is its text, an entry
        # a line (Label Studio's Text would join a list's entries with commas).
        data = {"id": record.id, design.items.text_key: record.text, **fields}
        for key in texts:
            value = data.get(key)
            data[key] = "" if value is None else as_lines(value) if isinstance(value, list | dict) else value
        for scheme in schemes.values():
            data.update(SCHEME_TYPES.of(scheme).labelstudio_data(scheme, record))
        if isinstance(came, dict):  # a dialogue goes back as its turns, HTML as its markup, a List as its entries
            data.update((key, value) for key, value in came.items() if key in data)
        if marking:
            data[design.items.text_key] = _marked_up(record, design.items)
        task = {"id": number, "data": data,
                "annotations": annotations, "meta": {"annotators": annotators}}
        if isinstance(suggested, dict) and isinstance(suggested.get("answers"), dict):
            # The item's suggestion goes back as the prediction it came from, first, with its score; its model's
            # answers are that prediction (a task's predictions are imported as both).
            best = next((found for found in predictions if found["model_version"] == suggested.get("model")), None)
            if best is None:
                best = {"model_version": suggested.get("model"),
                        "result": _results(schemes, suggested["answers"], to_name, called, placed)}
            else:
                predictions.remove(best)
            if isinstance(suggested.get("score"), int | float):
                best["score"] = suggested["score"]
            predictions.insert(0, best)
        if predictions:
            task["predictions"] = predictions
        yield task


def _placing(design: Any, record: Any) -> Callable[[dict[str, Any]], tuple[str, dict[str, Any]]] | None:
    """How a span of the item's text goes back into the Paragraphs or HyperText Label Studio showed it in (the
    result's type and value), when it was shown in one and the text is still what it showed; None otherwise."""
    key = design.items.text_key
    shown = design.export.labelstudio_shown.get(key, {})
    given = record.fields.get(GIVEN)
    raw = given.get(key) if isinstance(given, dict) else None
    if shown.get("tag") == "Paragraphs" and isinstance(raw, list) and record.text == "\n".join(
            _turn_line(turn, shown["nameKey"], shown["textKey"]) for turn in raw):
        places = _turn_places(raw, shown["nameKey"], shown["textKey"])
        return lambda value: ("paragraphlabels", _on_turns(value, places))
    if shown.get("tag") == "HyperText" and isinstance(raw, str):
        text, nodes = _html_text(raw)
        if text == record.text:
            return lambda value: ("hypertextlabels", _on_nodes(value, nodes))
    return None


def _turn_line(turn: Any, name_key: str, text_key: str) -> str:
    """A Paragraphs turn as its line of the item's text: "speaker: words" by the object's nameKey and textKey."""
    if not isinstance(turn, dict) or turn.get(text_key) is None:
        return as_lines([turn])
    who = turn.get(name_key)
    return f"{who}: {turn[text_key]}" if who not in (None, "") else str(turn[text_key])


def _turn_places(turns: list[Any], name_key: str, text_key: str) -> list[tuple[int, int]]:
    """Where each turn's words start and end in the item's text (its turns one a line, as `_turn_line` writes
    them; words that hold a line break of their own still count as one turn)."""
    places, start = [], 0
    for turn in turns:
        line = _turn_line(turn, name_key, text_key)
        said = str(turn[text_key]) if isinstance(turn, dict) and turn.get(text_key) is not None else line
        end = start + len(line)
        places.append((end - len(said), end))
        start = end + 1
    return places


def _on_turns(value: dict[str, Any], places: list[tuple[int, int]]) -> dict[str, Any]:
    """A span's value (character offsets in the item's text) as Label Studio's in Paragraphs: the turns it starts
    and ends in and the offsets in their words."""
    def at(offset: int, ending: bool) -> tuple[int, int]:
        index = next((number for number, (_, end) in enumerate(places) if offset < end + ending), len(places) - 1)
        start, end = places[index]
        return index, min(max(offset - start, 0), end - start)

    first, start = at(value["start"], False)
    last, end = at(value["end"], True)
    moved = {key: entry for key, entry in value.items() if key not in ("start", "end", "labels")}
    return {"start": str(first), "end": str(last), "startOffset": start, "endOffset": end, **moved,
            **({"paragraphlabels": value["labels"]} if "labels" in value else {})}


def _on_nodes(value: dict[str, Any], nodes: list[tuple[str, int] | None]) -> dict[str, Any]:
    """A span's value (character offsets in the HTML's text) as Label Studio's in HyperText: the XPaths of the text
    nodes it starts and ends in and the offsets in them (a line break the text adds between blocks is in no node:
    the span starts after it, ends before it)."""
    start = next((nodes[at] for at in range(value["start"], value["end"]) if nodes[at]), None)
    last = next((nodes[at] for at in range(value["end"] - 1, value["start"] - 1, -1) if nodes[at]), None)
    if start is None or last is None:
        raise ValueError(f"its span {value['start']}..{value['end']} holds none of the HTML's text")
    moved = {key: entry for key, entry in value.items() if key not in ("start", "end", "labels")}
    return {"start": start[0], "end": last[0], "startOffset": start[1], "endOffset": last[1] + 1, **moved,
            **({"hypertextlabels": value["labels"]} if "labels" in value else {})}


def _results(schemes: dict[str, Any], given: dict[str, Any], to_name: str, called: dict[str, str],
             placed: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """One person's (or a model's) answers to an item as Label Studio results, spans before the links that name
    them (in a dialogue's turns or an HTML's nodes, where `placed` places them); a scheme Label Studio has no control
    for is left out."""
    regions: dict[tuple, str] = {}
    results: list[dict[str, Any]] = []
    ordered = sorted(given, key=lambda name: not SCHEME_TYPES.of(schemes[name]).marks_text if name in schemes else True)
    for name in ordered:
        scheme = schemes.get(name)
        kind = SCHEME_TYPES.of(scheme) if scheme is not None else None
        if kind is None or given[name] is None or not kind.labelstudio_control(scheme, to_name):
            continue
        own = kind.labelstudio_objects(scheme)
        target = called.get(own[0][1], own[0][1]) if own else to_name  # as config_of names its objects
        for result in kind.labelstudio_results(scheme, given[name], target, regions):
            if placed and kind.marks_text and target == to_name and "start" in result.get("value", {}):
                kind_there, value = placed(result["value"])
                result = {**result, "value": value, **({"type": kind_there} if result["type"] == "labels" else {})}
            if result["type"] != "relation":
                result = {"id": result.get("id", f"{name}-{len(results) + 1}"),
                          "from_name": result.get("from_name", name), "to_name": result.get("to_name", target),
                          "type": result["type"], "value": result["value"]}
            results.append(result)
    return results

