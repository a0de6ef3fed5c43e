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
import json
import math
import posixpath
import random
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import yaml

from designs.answers import read_fields
from designs.items import (
    FORMATS,
    SAYINGS,
    SPEAKERS,
    Given,
    ItemsError,
    Record,
    as_lines,
    read_records,
    unanswerable,
)
from designs.loader import DesignError, decode, nearest, parse_yaml, validate
from designs.model import NAME, TYPE_NAMES, Design, Items
from designs.schemes import SCHEME_TYPES
from designs.schemes import Record as SchemeRecord
from designs.schemes.base import LabelledScheme
from designs.schemes.turn_rating import from_per_turn_ratings
from qualification.practice import Practice

# Top-level keys this importer reads.
READ = ("annotation_task_name", "task_dir", "data_files", "item_properties", "annotation_schemes",
        "num_annotators_per_item", "max_annotations_per_item", "annotation_instructions", "task_description",
        "annotation_codebook_url", "prolific", "mturk", "bws_config", "assignment_strategy", "gold_standards",
        "attention_checks", "instance_display", "training", "ai_support", "conditions", "event_template",
        "output_annotation_dir")
# Potato's display types that are text to read (a dialogue's turns, an agent trace's steps, code, a document):
# shown here as text, one turn or step a line; a display named as a scheme type (pairwise) shows what that scheme
# compares. The others (images, audio, video, PDFs, …) are not a text project's.
# The keys of an instance_display field that are not its display's options (Potato's STRUCTURAL_FIELD_KEYS).
STRUCTURAL = ("key", "type", "label", "span_target", "display_options")
PANED_DISPLAYS = ("pairwise",)  # Potato's displays of several things side by side (items.panes)
TEXT_DISPLAYS = ("text", "html", "dialogue", *PANED_DISPLAYS, "document", "code", "spreadsheet", "agent_trace",
                 "eval_trace", "coding_trace", "cot_trace", "web_agent_trace", "conversation_tree",
                 "multi_agent_discussion")
# Potato's known-answer blocks and the field of their items that holds the answer ({scheme: value}): their items
# are mixed into the HITs here as known-answer items (items.gold_key, hits.gold_rate).
KNOWN_ANSWERS = {"gold_standards": "gold_label", "attention_checks": "expected_answer"}
# Keys that only set up Potato's own server, pages and output files: nothing an annotator meets or an answer
# holds changes without them, so they are listed as ignored.
SERVER = ("port", "server", "server_name", "site_dir", "site_file", "debug", "base_html_template", "header_file",
          "html_layout", "customjs", "customjs_hostname", "ui", "hide_navbar", "output_annotation_format",
          "export_annotation_format", "login", "secret_key", "persist_sessions",
          "require_password", "jumping_to_id_disabled", "list_as_text", "user_config")
# Keys that change the study in Potato and are not carried over: each is a warning, saying what happens here
# instead. A key in neither list is a warning too: an import never passes over what it does not know.
CHANGES = {
    "phases": "the consent, instructions and survey pages are not shown; put what annotators must read in "
              "annotation_instructions",
    "surveyflow": "the pre- and post-study surveys are not shown",
    "automatic_assignment": "is not run: items go into HITs in the file's order, each HIT to the next person who "
                            "asks",
    "max_annotations_per_user": "there is no cap per person: a person takes HITs until none is left for them",
    "alert_time_each_instance": "there is no \"still there?\" alert: a claimed HIT is freed after the batch's time "
                                "limit",
    "displays": "items are shown by their text_key; the display types are not",
    "crowdsourcing": "the crowd is the project's provider (in-house, Prolific or MTurk), set here",
    # Potato embeds every document with a sentence-transformers model to draw its map; nothing here may download a
    # model while it runs.
    "corpus_map": "the map of the documents (embedded, clustered and drawn in 2-D) is not drawn: annotators work "
                  "through the documents in the batch's order",
}
BWS_TUPLE_IDS = "bws_tuple_{:04d}"  # Potato's ids for the sets it draws, so answers compare set by set
MAX_SETS = 100_000  # the sets an import draws at most: a project of 100,000 items, not a typo's billion
# The Potato keys every scheme carries over (each type's own: designs.schemes' potato_keys).
# A dialogue display's options that our view of a dialogue (designs.model.DialogueView) runs: (ours, Potato's).
DIALOGUE_VIEW = (("max_height", "max_height"), ("indent_replies", "indent_replies"),
                 ("max_indent_depth", "max_indent_depth"), ("show_reply_lines", "show_reply_lines"),
                 ("depth_key", "depth_key"), ("reply_to_key", "reply_to_key"), ("meta_fields", "turn_meta_fields"),
                 ("meta_key", "meta_key"))
COMMON = ("annotation_type", "name", "description", "label_requirement", "display_logic")
LABEL_KEYS = ("name", "tooltip", "description", "key_value", "key_binding", "color", "abbreviation")
SHOWN_AS = ("displayed_label", "text", "label")  # a label's text on Potato's page instead of its name, first found
OPERATORS = {"equals": "equals", "not_equals": "not_equals", "contains": "contains", "not_contains": "not_contains",
             "empty": "empty", "not_empty": "answered", "answered": "answered", "gt": "gt", "gte": "gte",
             "lt": "lt", "lte": "lte", "in_range": "in_range", "not_in_range": "not_in_range"}


STATE = "user_state.json"  # what Potato saves of each annotator's work, under output_annotation_dir/<user>/


class Folder(Protocol):
    """Where a config's relative paths are read from."""

    def read(self, path: str) -> bytes:
        """The file at `path` (posix, relative to the config's folder); FileNotFoundError if there is none."""
        ...

    def states(self, path: str) -> list[str]:
        """The paths of the user_state.json files one level under the folder `path`, as Potato saves each
        annotator's (`<output_annotation_dir>/<user>/user_state.json`), in order."""
        ...


class DiskFolder:
    def __init__(self, root: Path):
        self.root = root

    def read(self, path: str) -> bytes:
        try:
            return (self.root / path).read_bytes()
        except OSError:
            raise FileNotFoundError(path) from None

    def states(self, path: str) -> list[str]:
        return sorted(posixpath.join(path, found.parent.name, STATE) for found in (self.root / path).glob(f"*/{STATE}"))


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

    def states(self, path: str) -> list[str]:
        path = posixpath.normpath(path)
        return sorted(name for name in self.files if posixpath.dirname(posixpath.dirname(name)) == path
                      and posixpath.basename(name) == STATE)


@dataclass
class Imported:
    """One config's import: the design (None when it is not ok), its items and what was not carried over: `ignored`
    the keys of Potato's own server and pages, `warnings` what changes the study here (a block not run, a setting
    dropped: named, with what happens instead), `notes` how a key was translated."""

    config: str
    potato: dict[str, Any] = field(default_factory=dict)
    design: Design | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Potato's training round: (record, {scheme: known answer}, explanation) of each item, asked as a screening
    # test of the design before the real work (projects.services.potato_project_create makes it).
    training: list[tuple[Record, dict[str, Any], str]] = field(default_factory=list)
    training_rules: Practice | None = None
    # Answers given in the other tool (a Label Studio task's annotations), stored beside the crowd's with the project.
    given: list[Given] = field(default_factory=list)
    # The models' answers it came with (a Label Studio task's predictions), stored as a language model's are.
    predicted: list[Given] = field(default_factory=list)
    given_source: str = ""
    saved_work: str = ""  # the folder Potato's saved answers were read from (its output_annotation_dir)

    @property
    def ok(self) -> bool:
        return self.design is not None and not self.errors

    def schemes(self) -> list[dict[str, str]]:
        """The config's schemes as it names them (one we cannot show included)."""
        schemes = self.potato.get("annotation_schemes")
        return [{"name": str(scheme.get("name", "")), "type": str(scheme.get("annotation_type", ""))}
                for scheme in schemes if isinstance(scheme, dict)] if isinstance(schemes, list) else []

    def as_json(self) -> dict[str, Any]:
        found = {"config": self.config, "ok": self.ok, "items": len(self.records), "schemes": self.schemes(),
                 "ignored": self.ignored, "warnings": self.warnings, "errors": self.errors}
        if self.given:  # answers Potato saved, kept as their annotators'
            found.update(annotations=len(self.given), annotators=len({given.annotator for given in self.given}),
                         saved_work=self.saved_work)
        return found

    def source(self) -> str:
        """The design file this config became, as YAML, headed by where it came from."""
        head = [f"# Imported from the Potato config {Path(self.config).name}."]
        if self.ignored:
            head.append(f"# Its keys not used here: {', '.join(self.ignored)}.")
        head += [f"# Not carried over: {warning}" for warning in self.warnings]
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
    found.warnings = translation.warnings
    found.errors = list(translation.errors)
    try:
        design = validate(translation.design, translation.lines(), name=name)
    except DesignError as error:
        # Every problem at once, the translation's and the model's, so one round of fixes is enough; a key the
        # translation has named already (in Potato's words) is not named again in the design's.
        named = list(found.errors)
        found.errors += [str(problem) for problem in error.problems if str(problem) not in named
                         and not (problem.key and any(f": {problem.key}: " in said for said in named))]
        return found
    if found.errors:
        return found
    found.design = design
    compared = {scheme.items_key for scheme in found.design.annotation_schemes if hasattr(scheme, "items_key")}
    found.records, problems = _records(raw, lines, name, folder, found.design.items, compared)
    found.errors += problems
    if not found.errors:
        found.errors += _training_items(raw, name, folder, found)
    if not found.errors:
        known, problems = _known_answers(raw, lines, name, folder, design, {record.id for record in found.records})
        found.records += known
        found.errors += problems
    if not found.errors:
        best_worst = next((scheme for scheme in design.annotation_schemes
                           if SCHEME_TYPES.of(scheme).potato_draws_sets), None)
        if best_worst is not None and isinstance(raw.get("bws_config"), dict):
            found.records = _bws_tuples(found, best_worst, raw["bws_config"], lines)
        elif raw.get("bws_config") is not None:
            found.warnings.append("bws_config: no bws scheme uses it")
    if not found.errors:  # a bws_config that cannot draw is said once, not again as items lacking their sets
        _saved(found, design, raw, folder, translation.names)
        unanswered = unanswerable(design, found.records)
        if unanswered:
            record, problem = unanswered
            at = f"{record.file}:{record.line}" if record.file else name
            found.errors.append(f"{at}: {problem}" + ("; or let Potato's bws_config draw the sets from single "
                                                      "items" if best_worst is not None else ""))
    return found


class _Translation:
    """A Potato config as our design's data, with the config line each of our keys came from."""

    def __init__(self, raw: dict, lines: dict[tuple, int], name: str, folder: Folder):
        self.raw, self.potato_lines, self.name, self.folder = raw, lines, name, folder
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.origin: dict[tuple, tuple] = {}  # our path -> the config's path it came from
        self.names: dict[str, str] = {}  # a Potato scheme name -> ours
        self.aliased: dict[str, str] = {}  # a Potato scheme name -> its Potato type, where one of ours runs it
        self.alias_settings: dict[str, dict[str, Any]] = {}  # what its Potato export form needs besides
        self.text_key = "text"
        self.items: dict[str, Any] = {}
        # A dialogue display's per_turn_ratings, as our turn_rating schemes, asked first (Potato draws them in the
        # dialogue, before the questions), each with the display option it came from.
        self.turn_ratings: list[tuple[dict[str, Any], tuple]] = []
        self.ignored = [str(key) for key in raw if key in SERVER]
        # A block Potato runs only when enabled changes nothing while it says `enabled: false`.
        self.warnings = [f"{key}: {CHANGES.get(str(key), 'not a key this importer knows; it is not used')}"
                         for key, value in raw.items() if key not in READ and key not in SERVER
                         and not (isinstance(value, dict) and value.get("enabled") is False)]
        users = raw.get("user_config", {}).get("users") if isinstance(raw.get("user_config"), dict) else None
        if users:
            self.warnings.append("user_config.users: those accounts are not made here; invite the annotators from "
                                 "the project's People page")
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
        design["items"] = self.items = self._items()
        # Potato's pairwise and bws schemes compare what the text key holds unless they name another field.
        self.text_key = design["items"].get("text_key", "text")
        schemes = raw.get("annotation_schemes")
        if not isinstance(schemes, list):
            self.error(("annotation_schemes",), "is missing or not a list; a Potato config lists its schemes "
                                                "under annotation_schemes")
            schemes = []
        design["annotation_schemes"] = []
        for ours, (scheme, origin) in enumerate(self.turn_ratings):
            design["annotation_schemes"].append(scheme)
            self.origin[("annotation_schemes", ours)] = origin
        for index, scheme in enumerate(schemes):
            design["annotation_schemes"] += self._scheme(index, scheme, len(design["annotation_schemes"]))
        for ours, scheme in enumerate(design["annotation_schemes"]):
            if "display_logic" in scheme:
                scheme["display_logic"] = self._logic(scheme["display_logic"], self.origin[("annotation_schemes",
                                                                                             ours)])
        # Potato shows one item a page in file order, unless its assignment strategy is random.
        strategy = raw.get("assignment_strategy")
        design["hits"] = {"layout": "item", "order": "shuffled" if strategy == "random" else "file"}
        if strategy not in (None, "random", "fixed_order"):
            self.warnings.append(f"assignment_strategy: {strategy!r} is not run here: the items keep the file's "
                                 f"order, each HIT to the next person who asks")
        redundancy = next((key for key in ("num_annotators_per_item", "max_annotations_per_item")
                           if raw.get(key) is not None), None)
        count = raw.get(redundancy) if redundancy else None
        if isinstance(count, dict):
            # Potato's mapping form: a default count with overlap-sampling and adaptive rules, which are not run here.
            self.warnings.append(f"{redundancy}: the default count ({count.get('default', 'none given')}) is each "
                                 f"item's; its overlap sampling and adaptive boosts are not run")
            count = count.get("default")
        if redundancy and count in (-1, 0, None):
            self.warnings.append(f"{redundancy}: {count} (no limit in Potato) has no equal here, where a batch buys a "
                                 f"set number of answers an item: each item gets the design's default; set "
                                 f"hits.assignments_per_hit in the design")
        elif redundancy:
            design["hits"]["assignments_per_hit"] = count
            self.origin[("hits", "assignments_per_hit")] = (redundancy,)
        # The answers go out in Potato's own format too (potato/annotations.jsonl and .csv), beside ours.
        design["export"] = {"formats": ["csv", "jsonl", "potato"]}
        named = {scheme.get("name") for scheme in design.get("annotation_schemes", []) if isinstance(scheme, dict)}
        aliased = {self.names.get(name, name): kind for name, kind in self.aliased.items()}
        if any(name in named for name in aliased):  # their answers go out in their Potato type's own form
            design["export"]["potato_types"] = {name: kind for name, kind in aliased.items() if name in named}
            settings = {self.names.get(name, name): found for name, found in self.alias_settings.items()}
            if any(name in named for name in settings):
                design["export"]["potato_settings"] = {name: found for name, found in settings.items()
                                                       if name in named}
        self._training(design)
        self._model(design)
        rate = self._known_answer_rate()
        if rate:
            design["hits"]["gold_rate"] = rate
        self._attention(design)
        self._gold_feedback(design)
        self._gold_accuracy(design)
        kinds = [str(scheme.get("annotation_type")) for scheme in design["annotation_schemes"]
                 if isinstance(scheme, dict)]
        if raw.get("event_template") is not None and not any(
                kind in SCHEME_TYPES and SCHEME_TYPES.get(kind).keeps_shared for kind in kinds):
            # Potato's event registry is read by a multi_document_event scheme (and drawn by its corpus map, which
            # is not run here): without such a scheme nothing here uses it.
            self.warnings.append("event_template: no multi_document_event scheme reads it here; its events are not "
                                 "kept")
        if raw.get("conditions") is not None:
            # Potato's between-subjects conditions, as ours: each person given a cell the first time they open a
            # page of the batch (designs.conditions).
            design["conditions"] = raw["conditions"]
            self.origin[("conditions",)] = ("conditions",)
        for crowd in ("prolific", "mturk"):
            if raw.get(crowd):
                design["provider"] = {"name": crowd}
                self.origin[("provider",)] = (crowd,)
                self.notes.append(f"{crowd}: the study is made and paid by this platform's {crowd} provider; "
                                  f"the config's own {crowd} settings are not used")
                break
        return design

    def _model(self, design: dict[str, Any]) -> None:
        """Potato's ai_support as the design's llm block: the model, its temperature and max_tokens. Where it runs
        is given when it is asked (`design ask-model --url`), never kept in the design; its answers are shown on
        people's pages, with a holdout, by `design suggest` once it has answered (designs.suggestions)."""
        support = self.raw.get("ai_support")
        if not isinstance(support, dict) or support.get("enabled") is False:
            if support is not None:
                self.notes.append("ai_support: not enabled; no model is set up")
            return
        given = support.get("ai_config")
        config: dict[str, Any] = given if isinstance(given, dict) else {}
        found = {key: config[key] for key in ("model", "temperature", "max_tokens") if config.get(key) is not None}
        if found:
            design["llm"] = found
            self.origin[("llm",)] = ("ai_support", "ai_config")
        url = config.get("base_url") or config.get("api_base")
        kind = support.get("endpoint_type", "openai")
        self.notes.append(f"ai_support: the {kind} model {config.get('model', '(unnamed)')!r} is the design's llm; "
                          f"ask it with `manage.py design ask-model BATCH --url "
                          f"{url or '<its OpenAI-compatible API root>'}`, which compares it with the crowd")
        if config.get("api_key"):
            self.warnings.append("ai_support.ai_config.api_key: not kept (a design file holds no secrets); give it "
                                 "in an environment variable named by ask-model's --key-env")
        if kind not in ("openai", "vllm", "ollama", "openai_compatible", "llamacpp", "litellm"):
            self.warnings.append(f"ai_support.endpoint_type: {kind!r} is asked here through its OpenAI-compatible API "
                                 f"only; point --url at one")
        holdout = support.get("holdout")
        share = holdout.get("fraction") if isinstance(holdout, dict) else None  # Potato's {fraction, salt}
        # Potato shows the model's help on the page as the annotator works; here the model answers the batch
        # first, and its answers are then put on people's pages as suggestions, a share of pairs held out.
        self.notes.append("ai_support: to show the model's answers on people's pages as Potato does, run `manage.py "
                          "design suggest BATCH"
                          + (f" --holdout {share}" if isinstance(share, int | float) and not isinstance(share, bool)
                             else "") + "` once it has answered (ask-model)")
        if config.get("include") or {}:
            self.warnings.append("ai_support.ai_config.include: the model's hints, keywords and rationales are not "
                                 "drawn here; its answers are shown as the page's answers, pre-filled and marked")

    def _training(self, design: dict[str, Any]) -> None:
        """Potato's training round as the design's screening test (qualification), which must be passed before the
        real work: passing needs passing_criteria's min_correct of the items (all of them unless given, or with
        require_all_correct). The test is made with the project; its name here is the title's."""
        settings = self.raw.get("training")
        if settings is None:
            return
        if not isinstance(settings, dict) or not settings.get("enabled", False) or not settings.get("data_file"):
            self.warnings.append("training: not on, or no data_file: there is no practice round before the work")
            return
        design["qualification"] = {"test": f"{_slugified(str(design['title']))}-training"}
        self.origin[("qualification",)] = ("training",)
        self.notes.append(f"training: the items of {settings['data_file']} are a practice round before the real "
                          f"work, one item at a time with feedback and the explanation after each answer, passed at "
                          f"passing_criteria (the screening test of the project)")
        action = settings.get("failure_action", "move_to_done")
        if action not in ("move_to_done", "repeat_training"):
            self.warnings.append(f"training.failure_action: {action!r} is not Potato's move_to_done or "
                                 f"repeat_training; it is read as move_to_done (a round not passed ends the work)")

    def _known_answer_rate(self) -> float:
        """The share of each HIT that is known-answer items: Potato inserts one every `frequency` items (a
        `probability` is that share), gold standards and attention checks together; 0 when neither is on."""
        rate = 0.0
        for block in KNOWN_ANSWERS:
            settings = self.raw.get(block)
            if settings is None:
                continue
            if not isinstance(settings, dict) or not settings.get("enabled", True) or not settings.get("items_file"):
                self.warnings.append(f"{block}: not on, or no items_file: no known-answer items are mixed in")
                continue
            if isinstance(settings.get("probability"), int | float) and 0 < settings["probability"] <= 1:
                share = float(settings["probability"])
            else:
                frequency = settings.get("frequency")
                share = 1 / frequency if isinstance(frequency, int) and frequency > 1 else 0.1
            rate += share
            said = ("warned and then stopped as its failure_handling says" if block == "attention_checks" else
                    "no feedback is shown")
            self.notes.append(f"{block}: the items of {settings['items_file']} are known-answer items, "
                              f"{share:.0%} of each HIT; the report scores each annotator on them ({said})")
        return min(round(rate, 3), 0.5)

    def _known_answer_block(self, design: dict[str, Any], block: str, key: str,
                            example: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The settings of a Potato block about known-answer items and its sub-mapping `key` ({} when not given);
        None for the mapping when the block is off, the design has no known-answer items or `key` is not a
        mapping (an error then, naming the key and what to write)."""
        settings = self.raw.get(block)
        if not isinstance(settings, dict) or not settings.get("enabled", True) or not design["hits"].get("gold_rate"):
            return {}, None
        found = settings.get(key) or {}
        if not isinstance(found, dict):
            self.error((block, key), f"is not a mapping; write {example}")
            return settings, None
        return settings, found

    def _gold_feedback(self, design: dict[str, Any]) -> None:
        """Potato's gold_standards.feedback (silent unless it says otherwise) as hits.gold_feedback: after each
        submission, how the worker did on the HIT's gold items, each one got wrong with its answer and explanation."""
        _, feedback = self._known_answer_block(design, "gold_standards", "feedback",
                                                      "{show_correct_answer: true, show_explanation: true}")
        if feedback is None:
            return
        answer, explain = bool(feedback.get("show_correct_answer")), bool(feedback.get("show_explanation"))
        if answer or explain:
            design["hits"]["gold_feedback"] = {"answer": answer, **({"explanation_key": "explanation"}
                                                                    if explain else {})}
            self.notes.append("gold_standards.feedback: after each submission the annotator is told how they did on "
                              "its gold items" + (", with each right answer" if answer else "")
                              + (" and its explanation" if explain else "")
                              + " (Potato tells it after each gold item; here after the HIT)")

    def _gold_accuracy(self, design: dict[str, Any]) -> None:
        """Potato's gold_standards.accuracy (a fraction, or {min_threshold, evaluation_count}; 0.7 and 10 when not
        given, as Potato measures every gold study) as hits.gold_accuracy: the design report lists who is under it,
        and with feedback the worker is told."""
        settings = self.raw.get("gold_standards")
        if not isinstance(settings, dict) or not settings.get("enabled", True) or not design["hits"].get("gold_rate"):
            return
        given = settings.get("accuracy")
        found = {"min_threshold": given} if isinstance(given, int | float) and not isinstance(given, bool) else (
            given if isinstance(given, dict) else {})
        if given is not None and not isinstance(given, dict) and "min_threshold" not in found:
            self.error(("gold_standards", "accuracy"), f"is {given!r}; write a fraction such as 0.8, or "
                                                       f"{{min_threshold: 0.8, evaluation_count: 10}}")
            return
        threshold, count = found.get("min_threshold", 0.7), found.get("evaluation_count", 10)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
            self.error(("gold_standards", "accuracy"), f"min_threshold is {threshold!r}; give a share from 0 to 1, "
                                                       f"as Potato asks")
            return
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            self.error(("gold_standards", "accuracy"), f"evaluation_count is {count!r}; give a whole number of gold "
                                                       f"items, 1 or more, as Potato asks")
            return
        design["hits"]["gold_accuracy"] = {"min_threshold": threshold, "evaluation_count": count}
        self.notes.append(f"gold_standards.accuracy: each annotator's share of gold items right is measured once they "
                          f"have answered {count}; `manage.py design report` lists who is under {threshold:.0%}"
                          + (" and the feedback tells them" if design["hits"].get("gold_feedback") else "")
                          + " (as in Potato, no one is stopped by it)")

    def _attention(self, design: dict[str, Any]) -> None:
        """Potato's attention_checks.failure_handling as hits.attention: its thresholds (Potato's defaults 2 and 5
        when not given) and messages, counted over the batch's known-answer items."""
        settings, handling = self._known_answer_block(design, "attention_checks", "failure_handling",
                                                      "{warn_threshold: 2, block_threshold: 5}")
        if handling is None:
            return
        found: dict[str, Any] = {}
        for ours, theirs in (("warn_after", "warn_threshold"), ("block_after", "block_threshold")):
            value = handling.get(theirs, 2 if theirs == "warn_threshold" else 5)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                self.error(("attention_checks", "failure_handling", theirs),
                           f"is {value!r}; give a whole number of failed checks, 1 or more")
                return
            found[ours] = value
        for ours, theirs in (("warn_message", "warn_message"), ("block_message", "block_message")):
            if handling.get(theirs):
                found[ours] = str(handling[theirs])
        if found["block_after"] <= found["warn_after"]:
            self.error(("attention_checks", "failure_handling", "block_threshold"),
                       f"is {found['block_after']}, not more than warn_threshold ({found['warn_after']}); Potato "
                       f"refuses this too")
            return
        soonest = settings.get("min_response_time")
        if soonest is not None and (isinstance(soonest, bool) or not isinstance(soonest, int | float) or soonest < 0):
            self.error(("attention_checks", "min_response_time"), f"is {soonest!r}; give a number of seconds, 0 or "
                                                                  f"more, as Potato asks")
            return
        if soonest:
            found["min_response_s"] = soonest
            self.notes.append(f"attention_checks.min_response_time: a check answered in under {soonest:g} s counts "
                              f"as failed, measured by the server from the HIT's claim to the answer first reaching "
                              f"it (a saved draft or the submission): with several items on a page that is longer "
                              f"than the time on the check, so only answers surely too fast fail")
        design["hits"]["attention"] = found
        self.origin[("hits", "attention")] = ("attention_checks", "failure_handling") if handling else (
            "attention_checks",)
        if self.raw.get("gold_standards"):
            self.warnings.append("attention_checks.failure_handling: its thresholds count every known-answer item "
                                 "here, the gold_standards' items too (Potato counts the attention checks alone)")

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
        display = self.raw.get("instance_display")
        if isinstance(display, dict) and isinstance(display.get("fields"), list):
            items.update(self._displayed(display["fields"], items.get("text_key")))
        return items

    def _displayed(self, fields: list, text_key: str | None) -> dict[str, Any]:
        """Potato's instance_display fields as our items: the text (item_properties' text_key, else the first field
        of type text, document or code, else the first field) and the other fields shown before and after it in the
        display's order, headed by the display's label, a dialogue or a trace turn by turn. A display that is not text
        is an error."""
        shown: list[tuple[int, str]] = []
        for number, entry in enumerate(fields):
            if not isinstance(entry, dict) or not entry.get("key"):
                self.error(("instance_display", "fields", number), "has no key; name the item field it shows")
                continue
            kind = str(entry.get("type", "text"))
            if kind not in TEXT_DISPLAYS and kind not in SCHEME_TYPES:
                self.error(("instance_display", "fields", number, "type"),
                           f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} display ({entry['key']!r}) cannot be "
                           f"shown here: this platform shows text "
                           f"displays ({', '.join(TEXT_DISPLAYS)})")
                continue
            shown.append((number, str(entry["key"])))
        if not shown:
            return {}
        keys = [key for _, key in shown]
        kinds = {str(fields[number]["key"]): str(fields[number].get("type", "text")) for number, _ in shown}
        text = text_key if text_key in keys else next(
            (key for key in keys if kinds[key] in ("text", "document", "code")), keys[0])
        place = keys.index(text)
        self.notes.append(f"instance_display: {text!r} is the item's text"
                          + (f"; {', '.join(map(repr, keys[:place] + keys[place + 1:]))} shown with it"
                             if len(keys) > 1 else "") + ", a dialogue or a trace turn by turn")
        titles = {str(fields[number]["key"]): str(fields[number]["label"]) for number, _ in shown
                  if fields[number].get("label")}
        sides, numbered, views, widths = {}, [], {}, {}
        for number, key in shown:
            options = fields[number].get("display_options") or {}
            # Potato reads a field's other keys as display options too (its displays' get_display_options).
            options = {**{option: value for option, value in fields[number].items() if option not in STRUCTURAL},
                       **(options if isinstance(options, dict) else {})}
            if kinds[key] in PANED_DISPLAYS and key != text:
                labels = options.get("labels")
                sides[key] = [str(label) for label in labels] if isinstance(labels, list) else []
                width = options.get("cell_width")
                if width not in (None, "auto"):  # Potato's auto shares the row evenly, as ours do
                    widths[key] = f"{width}px" if isinstance(width, int | float) else str(width)
            if options.get("show_turn_numbers"):
                numbered.append(key)
            view = self._display_options(number, key, kinds[key], options)
            if view:
                views[key] = view
        return {"text_key": text, "show": keys[:place], "show_after": keys[place + 1:],
                **({"titles": titles} if titles else {}), **({"panes": sides} if sides else {}),
                **({"numbered": numbered} if numbered else {}), **({"dialogues": views} if views else {}),
                **({"pane_width": widths} if widths else {})}

    def _turn_ratings(self, number: int, key: str, kind: str, ratings: Any) -> None:
        """A dialogue's per_turn_ratings ({speakers, scheme: {size, labels}, schema_name}, or several under
        `schemes`) as turn_rating schemes: each rated speaker's turns given a point, any left unrated, as Potato's
        circles under each turn; kept under Potato's names ("per_turn_ratings" unless named)."""
        path = ("instance_display", "fields", number, "display_options", "per_turn_ratings")
        if kind != "dialogue":
            self.warnings.append(f"instance_display.fields.{number} ({key!r}): per_turn_ratings are drawn on a "
                                 f"dialogue display only (this is a {kind}); no rating of each turn is collected")
            return
        if not isinstance(ratings, dict) or not isinstance(ratings.get("speakers"), list) or not ratings["speakers"]:
            self.error(path, "names no speakers whose turns are rated; write {speakers: [Bot], scheme: {size: 5}}")
            return
        entries = ratings.get("schemes") if "schemes" in ratings else [
            {"schema_name": ratings.get("schema_name", "per_turn_ratings"), "scheme": ratings.get("scheme") or {}}]
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            self.error(path, "schemes is not a list of {schema_name, scheme}")
            return
        for entry in entries:
            name = str(entry.get("schema_name") or "per_turn_ratings")
            scale = entry.get("scheme") if isinstance(entry.get("scheme"), dict) else {}
            size = scale.get("size", 5)
            if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 10:
                self.error(path, f"{name!r}: size is {size!r}; give a whole number of points from 2 to 10")
                continue
            scheme = from_per_turn_ratings(key, [str(speaker) for speaker in ratings["speakers"]], name, scale)
            self.turn_ratings.append(({**scheme, "name": self._name(name, path)}, path))
            self.notes.append(f"instance_display.fields.{number} ({key!r}): per_turn_ratings {name!r}: each turn of "
                              f"{', '.join(map(str, ratings['speakers']))} rated 1 to {size}, any left unrated, asked "
                              f"under the dialogue turn by turn (Potato draws the points inside each turn)")

    def _display_options(self, number: int, key: str, kind: str, options: dict[str, Any]) -> dict[str, Any]:
        """A dialogue's view (items.dialogues: its height, reply threading, timestamps), and a named warning for the
        display options of a shown field that are not run here (never a silent ok): a dialogue's turn numbers and
        its turns' speakers and texts under the keys ours read are run; its turn ratings are asked."""
        ran = {"label", "labels", "show_turn_numbers", "show_labels", "vertical_on_mobile", "preserve_whitespace"}
        if kind in PANED_DISPLAYS:
            ran.add("cell_width")
        view = {}
        if kind == "dialogue":
            view = {ours: options[theirs] for ours, theirs in DIALOGUE_VIEW if options.get(theirs) is not None}
            if options.get("show_timestamps"):
                view["timestamps"] = options.get("timestamp_format") or "relative"
            ran |= {theirs for _, theirs in DIALOGUE_VIEW} | {"show_timestamps", "timestamp_format"}
        if kind == "conversation_tree":  # Potato folds a node's replies from depth 2 unless told otherwise
            depth = options.get("collapsed_depth", 2)
            if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0:
                view["collapsed_depth"] = depth
                ran.add("collapsed_depth")
        left = []
        for option, value in options.items():
            if option in ran or (option == "alternating_shading" and value is not False) or (
                    option == "speaker_extraction" and value is not False) or (
                    option == "speaker_key" and value in SPEAKERS) or (option == "text_key" and value in SAYINGS):
                continue
            left.append(option)
        if "per_turn_ratings" in left:
            left.remove("per_turn_ratings")
            self._turn_ratings(number, key, kind, options["per_turn_ratings"])
        if left:
            self.warnings.append(f"instance_display.fields.{number} ({key!r}): display_options {', '.join(left)} not "
                                 f"run here: the {kind} is shown without {'it' if len(left) == 1 else 'them'}")
        return view

    def show_before(self, field: str) -> None:
        """An item field shown before the item's text (a question a scheme asks of the text)."""
        shown = self.items.setdefault("show", [])
        if field != self.text_key and field not in shown:
            shown.append(field)

    def mark_field(self, field: str) -> None:
        """`field` becomes the item's text, the one a span scheme marks; the text it was is shown before it."""
        if field != self.text_key:
            self.show_before(self.text_key)
            self.items["text_key"] = self.text_key = field

    def _scheme(self, index: int, scheme: Any, ours: int) -> list[dict[str, Any]]:
        path = ("annotation_schemes", index)
        if not isinstance(scheme, dict):
            self.error(path, f"is a {type(scheme).__name__}; each scheme is a mapping with annotation_type and name")
            return []
        kind_name = str(scheme.get("annotation_type", ""))
        runs_as = next((kind for kind in SCHEME_TYPES.in_order() if kind.potato_claims(scheme)), None)
        if runs_as is not None:  # a Potato type one of ours runs (a vas is a slider)
            # What every scheme has carries over as written; the alias says the rest (and may reword the question).
            common = {key: scheme[key] for key in ("name", "description", "display_logic", "label_requirement")
                      if key in scheme}
            try:
                own, note = runs_as.potato_alias(scheme, self)
            except ValueError as error:  # a setting Potato would refuse too, named
                self.error(path, f"scheme {scheme.get('name', '') or index!r} ({kind_name}): {error}")
                return []
            self.aliased[str(scheme.get("name", ""))] = kind_name
            if kind_name == "error_span":  # its score needs the severities' weights, which our spans do not keep
                weights = [level for level in scheme.get("severities") or [] if isinstance(level, dict)]
                self.alias_settings[str(scheme.get("name", ""))] = {
                    "severities": {str(level.get("name", "")): level.get("weight", 0) for level in weights} or {
                        "Minor": -1, "Major": -5, "Critical": -10},
                    "max_score": scheme.get("max_score", 100)}
            scheme = {"annotation_type": runs_as.name, **common, **own}
            self.notes.append(f"scheme {scheme.get('name', '')!r}: {note}")
            kind_name = runs_as.name
        if kind_name not in SCHEME_TYPES:
            what = f"annotation_type {kind_name!r}" if kind_name else "no annotation_type"
            aliases = dict.fromkeys(alias for kind in SCHEME_TYPES.in_order() for alias in kind.potato_aliases)
            self.error((*path, "annotation_type") if kind_name else path,
                       f"scheme {scheme.get('name', '') or index!r} has {what}, which this platform cannot show; it "
                       f"shows text schemes: {', '.join(TYPE_NAMES)} (and runs Potato's "
                       f"{', '.join(aliases)} "
                       f"as them)")
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
        return self._convert(kind, scheme, path, ours, aliased=runs_as is not None)

    def _convert(self, kind: Any, scheme: dict, path: tuple, ours: int, aliased: bool = False) -> list[dict[str, Any]]:
        """One Potato scheme as ours: the keys that carry over copied, the rest noted, the type's own translation.
        A scheme a type's potato_alias wrote is in our keys already (a text_edit's prefill_key)."""
        name = str(scheme.get("name", ""))
        converted: dict[str, Any] = {}
        dropped = []
        labelled = issubclass(kind.settings, LabelledScheme)
        for key, value in scheme.items():
            if key in COMMON or key in kind.potato_keys or (aliased and key in kind.settings.model_fields):
                if value is not None:
                    converted[key] = value
            elif key == "label_file" and labelled:
                converted["labels"] = self._label_file(path, value)
            elif key == "title" and not scheme.get("description"):
                converted["description"] = value
            elif key == "humanize_labels" and kind.potato_humanizes:
                pass  # read with the labels
            elif key in kind.potato_said:
                self.notes.append(f"scheme {name!r}: {key}: {kind.potato_said[key]}")
            else:
                dropped.append(str(key))
        if dropped:
            allowed = [*COMMON, *kind.potato_keys]
            named = [key + "".join(f" (did you mean {close!r}?)"
                                   for close in difflib.get_close_matches(key, allowed, n=1, cutoff=0.8))
                     for key in dropped]
            self.warnings.append(f"scheme {name!r}: {', '.join(named)} not used here: the {kind.name} scheme is "
                                 f"shown without {'it' if len(dropped) == 1 else 'them'}")
        if "name" in converted:
            converted["name"] = self._name(name, path)
        if "label_requirement" in converted:
            converted["label_requirement"] = _requirement(converted["label_requirement"])
        if "has_free_response" in converted:
            converted["has_free_response"] = bool(converted["has_free_response"])
        if "labels" in converted:
            humanize = kind.potato_humanizes and scheme.get("humanize_labels", True) is not False
            converted["labels"] = self._labels(converted["labels"], name, humanize)
        found = kind.from_potato(converted, self)
        for number in range(len(found)):
            self.origin[("annotation_schemes", ours + number)] = path
        return found

    # What the type modules' translations ask of the importer (designs.schemes' from_potato).
    def json_file(self, path: tuple, value: Any) -> Any:
        """A JSON file the config names (under task_dir, else beside the config), or None with an error naming the
        key at `path` and what to do."""
        try:
            return json.loads(_read(self.folder, self.raw, str(value))[1].decode("utf-8-sig"))
        except FileNotFoundError:
            self.error(path, f"cannot find {value}; upload it beside the config")
        except (UnicodeDecodeError, ValueError, RecursionError) as problem:
            self.error(path, f"{value} is not JSON ({problem}); save it as UTF-8 JSON")
        return None

    def displayed(self, kind: str) -> list[str]:
        """The item fields instance_display shows as `kind` (a coding_trace, a conversation_tree), in its order."""
        display = self.raw.get("instance_display")
        shown = display.get("fields") if isinstance(display, dict) else None
        return [str(entry["key"]) for entry in shown if isinstance(entry, dict) and entry.get("key")
                and entry.get("type") == kind] if isinstance(shown, list) else []

    def scale(self, scale: dict[str, Any]) -> dict[str, Any]:
        converted: dict[str, Any] = {key: scale[key] for key in ("min", "max", "step", "min_label", "max_label",
                                                                 "center_label", "default") if key in scale}
        labels = scale.get("labels")
        if isinstance(labels, dict):
            for end in ("min", "max", "center"):
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

    def _labels(self, labels: Any, scheme: str, humanize: bool) -> Any:
        """The labels as ours: the name stored as written, and shown as Potato shows it (its displayed_label, text
        or label, else the name humanized where the type's page humanizes) when that differs."""
        if not isinstance(labels, list):
            return labels  # the model says what is wrong, at its line
        converted = []
        for label in labels:
            entry = dict(label) if isinstance(label, dict) else {"name": label}
            dropped = [str(key) for key in entry if key not in (*LABEL_KEYS, *SHOWN_AS)]
            if dropped:
                self.warnings.append(f"scheme {scheme!r}: label keys {', '.join(sorted(set(dropped)))} not used")
            if isinstance(entry.get("name"), bool):
                self.warnings.append(f"scheme {scheme!r}: the label {_label_text(entry['name'])!r} was read by YAML "
                                     f"as a boolean and is kept as that text; Potato 2.12.1 refuses the config for "
                                     f"it: quote it (labels: [\"Yes\", \"No\"]) to keep the word written")
            found = {key: _label_text(value) if key == "name" else value for key, value in entry.items()
                     if key in LABEL_KEYS and value is not None}
            shown = next((str(entry[key]) for key in SHOWN_AS if entry.get(key)), None)
            if shown is None and humanize and isinstance(found.get("name"), str):
                shown = _humanized(found["name"])
            if shown is not None and shown != found.get("name") and not found.get("description"):
                found["description"] = shown
            converted.append(found if set(found) != {"name"} else found["name"])
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
                self.warnings.append(f"display_logic: {key} not used; the condition is checked without it")
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
            found = read_records(data, name=relative, settings=settings, format=kind, corpora=False)
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


def _saved(found: Imported, design: Design, raw: dict, folder: Folder, names: dict[str, str]) -> None:
    """The answers Potato saved for the project (each annotator's user_state.json under output_annotation_dir, read
    as Potato's own export reads them) as the given answers of their annotators (`found.given`), checked as a form's
    are: a half-done study carries its work over. What cannot be read back is named in the warnings and left out."""
    output = str(raw.get("output_annotation_dir") or "annotation_output")
    places = dict.fromkeys((_joined(raw, output), posixpath.normpath(output.replace("\\", "/"))))
    place, paths = next(((place, listed) for place in places if (listed := folder.states(place))), ("", []))
    records = {record.id: record for record in found.records}
    schemes = {scheme.name: scheme for scheme in design.annotation_schemes}
    unread: dict[str, str] = {}
    users: dict[str, str] = {}  # whose work was read, from where
    for path in paths:
        try:
            state = json.loads(folder.read(path))
        except (ValueError, FileNotFoundError, RecursionError) as error:
            found.warnings.append(f"{path}: not read ({error}); that annotator's saved answers are left out")
            continue
        if not isinstance(state, dict):
            found.warnings.append(f"{path}: is not a saved state (a JSON object); left out")
            continue
        user = str(state.get("user_id") or posixpath.basename(posixpath.dirname(path)))
        if user in users:
            found.warnings.append(f"{path}: {user}'s work was read from {users[user]} already; this one is left out")
            continue
        users[user] = path
        try:
            saved_items = _saved_records(state)
        except (AttributeError, TypeError) as error:
            found.warnings.append(f"{path}: its answers are not in the shape Potato saves them ({error}); left out")
            continue
        for item, saved in saved_items.items():
            record = records.get(item)
            if record is None:
                found.warnings.append(f"{path}: item {item!r} is not among the project's items; {user}'s answer to "
                                      f"it is left out")
                continue
            shown = SchemeRecord(id=record.id, text=record.text, fields=record.fields)
            # The spans links and events name by id, whichever scheme marked them.
            spans = {span.get("id"): span for written in saved.values() for span in written.get("spans", [])
                     if isinstance(span.get("id"), str | int)}  # an id that is a mapping names no span
            values: dict[str, dict[str, str]] = {}
            for potato_name, written in saved.items():
                scheme = schemes.get(names.get(potato_name, potato_name))
                if scheme is None:
                    unread.setdefault(potato_name, "no scheme of the config has that name")
                    continue
                kind, alias = SCHEME_TYPES.of(scheme), design.export.potato_types.get(scheme.name)
                try:
                    written = {**written, "spans_by_id": spans}
                    values[scheme.name] = kind.potato_alias_fields(
                        alias, scheme, written, shown, design.export.potato_settings.get(scheme.name)) if alias \
                        else kind.potato_fields(scheme, written, shown)
                except NotImplementedError as error:
                    unread.setdefault(potato_name, str(error))
                except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
                    # A saved state is a file like any other: what its answer holds is not trusted.
                    found.warnings.append(f"{path}: {user}'s {potato_name} on item {item!r} does not fit ({error}); "
                                          f"left out")
            answers, problems = read_fields(design, shown, values)
            found.warnings += [f"{path}: {user}'s {scheme} on item {item!r} does not fit ({problem}); left out"
                               for scheme, problem in problems]
            if answers:
                found.given.append(Given(record.id, user, answers))
    found.warnings += [f"{place}: the saved answers of scheme {scheme!r}: {why}; left out"
                       for scheme, why in unread.items()]
    found.given_source, found.saved_work = "potato", place


def _saved_records(state: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """One annotator's saved state as {item: {scheme: {"labels": {input: value}, "spans": [...], "links": [...],
    "events": [...]}}}, read as Potato 2.12.1's export reads it (potato/export/cli.py): labels as [[{schema, name},
    value], ...] or {schema: {name: value}}, spans as [[span, value], ...] or {schema: [span, ...]}; and the links
    and events its export leaves out, as its UserState saves them."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    labels, spans = state.get("instance_id_to_label_to_value") or {}, state.get("instance_id_to_span_to_value") or {}
    for item, saved in labels.items():
        pairs = ((entry[0].get("schema", ""), entry[0].get("name", ""), entry[1]) for entry in saved
                 if isinstance(entry, list | tuple) and len(entry) == 2 and isinstance(entry[0], dict)) \
            if isinstance(saved, list) else ((schema, label, value) for schema, named in saved.items()
                                             if isinstance(named, dict) for label, value in named.items())
        for schema, label, value in pairs:
            found.setdefault(str(item), {}).setdefault(str(schema), {}).setdefault("labels", {})[str(label)] = value
    for item, saved in spans.items():
        listed = [entry[0] if isinstance(entry, list | tuple) else entry for entry in saved] \
            if isinstance(saved, list) else [span for each in saved.values() if isinstance(each, list | dict)
                                             for span in (each if isinstance(each, list) else each.values())]
        for span in listed:
            if isinstance(span, dict):
                found.setdefault(str(item), {}).setdefault(str(span.get("schema", "")), {}).setdefault(
                    "spans", []).append(span)
    # Links and events, which Potato's export leaves out: {item: {id: link or event}}, as its UserState saves them.
    for key, part in (("instance_id_to_link_to_value", "links"), ("instance_id_to_event_to_value", "events")):
        for item, saved in (state.get(key) or {}).items():
            for entry in (saved.values() if isinstance(saved, dict) else []):
                if isinstance(entry, dict):
                    found.setdefault(str(item), {}).setdefault(str(entry.get("schema", "")), {}).setdefault(
                        part, []).append(entry)
    return found


def _training_items(raw: dict, name: str, folder: Folder, found: Imported) -> list[str]:
    """Potato's training data file ({"training_instances": [{"id", <text>, "correct_answers": {scheme: answer},
    "explanation"}]}) as the screening test's items, and its pass mark; errors name the file."""
    settings = raw.get("training")
    if found.design is None or found.design.qualification is None or not isinstance(settings, dict):
        return []
    try:
        relative, data = _read(folder, raw, str(settings["data_file"]))
    except FileNotFoundError:
        return [f"{name}: training.data_file: cannot find {_joined(raw, str(settings['data_file']))}"]
    try:
        instances = json.loads(data.decode("utf-8-sig")).get("training_instances")
    except (ValueError, AttributeError, RecursionError):
        instances = None
    if not isinstance(instances, list) or not instances:
        return [f"{relative}: is not {{\"training_instances\": [...]}} with at least one item; each item has an "
                f"id, its text and correct_answers"]
    text_key = found.design.items.text_key
    schemes = {scheme.name for scheme in found.design.annotation_schemes}
    errors = []
    for number, instance in enumerate(instances, 1):
        where = f"{relative}: training_instances item {number}"
        answers = instance.get("correct_answers") if isinstance(instance, dict) else None
        if not isinstance(answers, dict) or not answers or "id" not in instance:
            errors.append(f"{where}: needs an id and correct_answers, {{scheme: answer}}")
            continue
        unknown = _unknown_scheme(answers, schemes)
        if unknown:
            errors.append(f"{where}: correct_answers {unknown}")
            continue
        text = instance.get(text_key, instance.get("text", ""))
        fields = {key: value for key, value in instance.items()
                  if key not in ("id", "correct_answers", "explanation", text_key, "text")}
        record = _readable(Record(id=str(instance["id"]), text="" if isinstance(text, list | dict) else str(text),
                                  fields={**fields, **({text_key: text} if isinstance(text, list | dict) else {})}),
                           text_key, set())
        found.training.append((record, answers, str(instance.get("explanation", ""))))
    criteria = settings.get("passing_criteria")
    criteria = criteria if isinstance(criteria, dict) else {}
    total = len(found.training) or 1
    wanted = criteria.get("min_correct")
    needed = total if criteria.get("require_all_correct") or not isinstance(wanted, int) else max(1, min(wanted, total))
    score = math.ceil(needed * 100 / total)
    found.design = found.design.model_copy(update={"qualification": found.design.qualification.model_copy(
        update={"min_score": score})})
    found.raw["qualification"]["min_score"] = score
    feedback = settings.get("feedback")
    feedback = feedback if isinstance(feedback, dict) else {}
    found.training_rules = Practice(
        min_correct=needed, require_all=bool(criteria.get("require_all_correct")),
        max_mistakes=_limit(criteria.get("max_mistakes")),
        max_mistakes_per_item=_limit(criteria.get("max_mistakes_per_question")),
        retry=bool(settings.get("allow_retry", feedback.get("allow_retry", True))),
        repeat=settings.get("failure_action") == "repeat_training", max_rounds=_limit(criteria.get("max_attempts")))
    return errors


def _limit(value: Any) -> int | None:
    """A Potato count where -1 (or nothing) is no limit."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _unknown_scheme(answers: dict[str, Any], schemes: set[str]) -> str:
    """What is wrong with known answers that name a scheme the config does not have, or ""."""
    unknown = sorted(set(answers) - schemes)
    if not unknown:
        return ""
    return f"names {unknown[0]!r}, which is not a scheme of the config ({', '.join(sorted(schemes))})"


def _known_answers(raw: dict, lines: dict[tuple, int], name: str, folder: Folder, design: Any,
                   taken: set[str]) -> tuple[list[Record], list[str]]:
    """The items of the gold_standards and attention_checks items files, with their answers as known answers:
    Potato's {"id", <text>, "gold_label" (or "expected_answer"): {scheme: value}}."""
    records: list[Record] = []
    errors: list[str] = []
    schemes = {scheme.name for scheme in design.annotation_schemes}
    for block, answer_key in KNOWN_ANSWERS.items():
        settings = raw.get(block)
        if not isinstance(settings, dict) or not settings.get("enabled", True) or not settings.get("items_file"):
            continue
        at = f"{name}:{lines.get((block, 'items_file'), lines.get((block,), ''))}".rstrip(":")
        try:
            relative, data = _read(folder, raw, str(settings["items_file"]))
        except FileNotFoundError:
            errors.append(f"{at}: {block}.items_file: cannot find {_joined(raw, str(settings['items_file']))}")
            continue
        reading = design.items.model_copy(update={"id_key": "id", "gold_key": answer_key})
        try:
            found = read_records(data, name=relative, settings=reading, corpora=False)
        except ItemsError as error:
            errors.append(str(error))
            continue
        for record in found:
            where = f"{relative}:{record.line}"
            if not isinstance(record.gold, dict) or not record.gold:
                errors.append(f"{where}: {answer_key} is missing or not {{scheme: answer}}; give the known answer")
            elif _unknown_scheme(record.gold, schemes):
                errors.append(f"{where}: {answer_key} {_unknown_scheme(record.gold, schemes)}")
            elif record.id in taken:
                errors.append(f"{where}: the id {record.id!r} is an item of the data files too; give it its own id")
            else:
                taken.add(record.id)
                records.append(record)
    return records, errors


def _bws_tuples(found: Imported, scheme: Any, config: dict[str, Any], lines: dict[tuple, int]) -> list[Record]:
    """The sets of `scheme.tuple_size` items Potato draws from single items by its bws_config, as the items of
    this import: every item once before any item again, none twice in a set, `seed` fixing the draw (42 unless
    given), as many sets as make each item appear min_item_appearances times (twice the set size unless given)
    unless num_tuples says. Each set keeps its items' ids (bws_items) beside the texts compared."""
    pool, size = found.records, scheme.tuple_size
    line = lines.get(("bws_config",))
    where = f"{found.config}:{line}: bws_config" if line else f"{found.config}: bws_config"
    if size > len(pool):
        found.errors.append(f"{where}: sets of {size} cannot be drawn from {len(pool)} items; give more items or a "
                            f"smaller tuple_size")
        return pool
    appearances = config.get("min_item_appearances") or 2 * size
    seed = config.get("seed")
    if _limit(appearances) is None:
        found.errors.append(f"{where}.min_item_appearances: {appearances!r} is not a number of times; give 1 or "
                            f"more, or leave it out (twice the set size)")
        return pool
    if seed is not None and not isinstance(seed, int | str):
        found.errors.append(f"{where}.seed: {seed!r} is not a seed; give a whole number, or leave it out (42)")
        return pool
    wanted = config.get("num_tuples") or -(-len(pool) * appearances // size)
    if _limit(wanted) is None:
        found.errors.append(f"{where}.num_tuples: {wanted!r} is not a number of sets; give 1 or more, or leave it "
                            f"out to have it computed")
        return pool
    if wanted > MAX_SETS:
        found.errors.append(f"{where}: {wanted:,} sets are more than an import draws ({MAX_SETS:,}); give a smaller "
                            f"num_tuples or min_item_appearances")
        return pool
    rng = random.Random(42 if seed is None else seed)
    queue: list[int] = []
    sets = []
    for number in range(wanted):
        chosen: list[int] = []
        while len(chosen) < size:
            if not queue:
                queue = list(range(len(pool)))
                rng.shuffle(queue)
            fresh = next((index for index in queue if index not in chosen), None)
            if fresh is None:  # what is left of this pass is in the set already: the next pass joins the queue
                more = list(range(len(pool)))
                rng.shuffle(more)
                queue += more
                continue
            queue.remove(fresh)
            chosen.append(fresh)
        members = [pool[index] for index in chosen]
        sets.append(Record(id=BWS_TUPLE_IDS.format(number + 1), text="", fields={
            scheme.items_key: [member.text for member in members],
            "bws_items": [{"source_id": member.id, "text": member.text, "position": chr(ord("A") + place)}
                          for place, member in enumerate(members)]}))
    found.notes.append(f"bws_config: {len(sets)} sets of {size} drawn from the {len(pool)} items (seed "
                       f"{42 if seed is None else seed}), each set an item here, as Potato draws them")
    return sets


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
    return replace(record, text=as_lines(value))


def _joined(raw: dict, path: str) -> str:
    """A path of the config resolved against task_dir (itself relative to the config's folder)."""
    task_dir = raw.get("task_dir")
    base = str(task_dir) if isinstance(task_dir, str) and task_dir.strip() else "."
    return posixpath.normpath(posixpath.join(base, path.replace("\\", "/")))


def _slugified(title: str) -> str:
    """A screening test's name from a title: lower-case words joined by hyphens, at most 48 characters."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48] or "potato"


def _humanized(name: str) -> str:
    """A label's name as Potato's pages show it: _ and - as spaces, each all-lowercase word capitalized, other
    words (acronyms, GPT4, MixedCase) as written; a template expression untouched."""
    if "{{" in name or "{%" in name:
        return name
    words = name.replace("_", " ").replace("-", " ").split()
    return " ".join(word[:1].upper() + word[1:] if word.islower() else word for word in words)


def _label_text(value: Any) -> Any:
    """A label written as a number or a YAML boolean (`- 1`, `- yes`) as the text Potato shows for it; anything
    else as it is, for the model to name what is wrong."""
    if isinstance(value, bool):
        return "True" if value else "False"  # what Potato (PyYAML, then str) shows for yes/no/true/false
    if isinstance(value, int | float):
        return str(value)
    return value


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _requirement(value: Any) -> dict[str, bool]:
    if isinstance(value, dict):
        return {"required": bool(value.get("required", False))}
    return {"required": bool(value)}
