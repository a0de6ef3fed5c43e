"""What every scheme type has: its settings' shared keys (pydantic), the registry, the record it reads against,
the form fields of one answer, and `SchemeType`, the class each type's module subclasses once.

A scheme type is one module of this package holding one `SchemeType` subclass, registered with `@scheme_type`,
and one widget template (designs/templates/designs/widgets/<name>.html). The class holds everything about the
type: its settings model (`settings`, the pydantic class of its keys in a design file), how its answer is read
from the form and checked (`read`), the JSON Schema of that answer (`answer_schema`), the aggregations that fit
it and the level its agreement is measured at, how it binds keys, what its widget needs, its names in Potato, and
what the dataset card says of it. The design model's scheme union, the list of types and every per-type table
are read from the registry (tests/designs/test_scheme_types.py fails when a registered type lacks a part).
Django-free.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from xml.sax.saxutils import quoteattr

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from core.registry import Registry

NAME = r"^[A-Za-z][A-Za-z0-9_.-]{0,59}$"


class Strict(BaseModel):
    # Unknown keys are errors (a typo such as `lables` must not pass silently); the loader adds "did you mean".
    model_config = ConfigDict(extra="forbid", frozen=True)


class Label(Strict):
    """One answer a labelled scheme offers; written as a plain string, it is just its name."""

    name: str = Field(min_length=1, max_length=200, description="the value stored as the answer")
    tooltip: str = Field("", description="shown when the pointer rests on the label")
    description: str = Field("", description="shown as the label's text instead of its name")
    key_value: str | None = Field(None, description="the keyboard key that picks this label")
    key_binding: str | None = Field(None, description="Potato's other name for key_value")
    color: str | None = Field(None, description="Potato's; read and kept, not drawn")
    abbreviation: str | None = Field(None, description="Potato's; read and kept, not drawn")

    @field_validator("name", mode="before")
    @classmethod
    def _name_as_text(cls, value: Any) -> Any:
        # YAML reads `yes`, `1` and `true` as non-strings; a label is always the text written.
        return _as_label_text(value)

    @field_validator("key_value", "key_binding", mode="before")
    @classmethod
    def _key_as_text(cls, value: Any) -> Any:
        return None if value is None else _as_label_text(value)

    @property
    def key(self) -> str | None:
        return self.key_value or self.key_binding


def _as_label_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    return value


def _labels(value: Any) -> Any:
    """Labels may be written as strings; each becomes a Label."""
    if isinstance(value, list):
        return [{"name": _as_label_text(entry)} if not isinstance(entry, dict) else entry for entry in value]
    return value


# A label may be written as its name alone (YAML reads `yes` and `1` as a boolean and a number): the schema
# says so, and the model turns each into a Label.
def labels_in_any_form(schema: dict[str, Any]) -> None:
    schema["items"] = {"anyOf": [schema["items"], {"type": ["string", "number", "boolean"]}]}


class Requirement(Strict):
    """Potato's label_requirement: whether a scheme must be answered before the HIT can be submitted."""

    required: bool = False


class Condition(Strict):
    """One test of display logic on another scheme's answer."""

    schema_: str = Field(alias="schema", description="the name of the scheme whose answer is tested")
    operator: Literal["equals", "not_equals", "contains", "not_contains", "answered", "empty", "gt", "gte", "lt",
                      "lte", "in_range", "not_in_range"] = "equals"
    value: Any = Field(None, description="a value or a list of values (any of them); in_range: [low, high]")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class DisplayLogic(Strict):
    """Potato's display_logic: the scheme is shown (and asked) only when its conditions hold."""

    show_when: list[Condition] = Field(min_length=1)
    logic: Literal["all", "any"] = "all"


class SchemeBase(Strict):
    if TYPE_CHECKING:
        annotation_type: str  # each type's own Literal, set by its settings class
    name: str = Field(pattern=NAME, description="unique in the design; the answer's key")
    description: str = Field("", description="the question the annotator is asked")
    instructions: str = Field("", description="shown under the question, before its answers (plain text; a blank "
                                              "line starts a paragraph)")
    label_requirement: Requirement | None = None
    display_logic: DisplayLogic | None = None

    @field_validator("labels", mode="before", check_fields=False)
    @classmethod
    def _labels_as_objects(cls, value: Any) -> Any:
        return _labels(value)

    @property
    def required(self) -> bool:
        return bool(self.label_requirement and self.label_requirement.required)


class LabelledScheme(SchemeBase):
    labels: list[Label] = Field(min_length=1, json_schema_extra=labels_in_any_form)
    sequential_key_binding: bool = False
    has_free_response: bool = False

    @field_validator("labels", mode="after")
    @classmethod
    def _distinct_labels(cls, labels: list[Label]) -> list[Label]:
        # A field validator, so that the error points at the labels' line.
        no_repeats([label.name for label in labels], "labels", "label")
        no_repeats([label.key for label in labels if label.key], "labels", "key_value")
        return labels

    def keys(self) -> dict[str, str]:
        """Keyboard key -> label name: the labels' own keys, else 1..9 when sequential_key_binding is set."""
        own = {label.key: label.name for label in self.labels if label.key}
        if own or not self.sequential_key_binding:
            return own
        return {str(number): label.name for number, label in enumerate(self.labels[:9], 1)}


class ItemLabels(Strict):
    """Labels some of which each item may leave out, as Potato's dynamic_options (a choice scheme's settings)."""

    dynamic_options: bool = Field(False, description="show on each item only the labels its dynamic_options_field "
                                                     "lists")
    dynamic_options_field: str = Field("visible_labels", description="the item field listing the labels shown on "
                                                                      "it (a text or a list); an item without it "
                                                                      "shows them all")


def shown_labels(scheme: Any, record: Any) -> list[str] | None:
    """The labels `record` shows of a scheme with dynamic_options, as its field lists them (those that are the
    scheme's), or None when it shows them all (no dynamic options, or an item without the field)."""
    if not getattr(scheme, "dynamic_options", False) or record is None:
        return None
    found = record.fields.get(scheme.dynamic_options_field)
    if found is None:
        return None
    # An entry is a label's name, or (a Label Studio task's choices) an object with its value.
    listed = {str(entry.get("value") if isinstance(entry, dict) else entry)
              for entry in ([found] if isinstance(found, str) else found if isinstance(found, list) else [])}
    return [label.name for label in scheme.labels if label.name in listed]


def no_labels_shown(scheme: Any, record: Any) -> str | None:
    """An item that shows none of a choice scheme's labels (and no Other box) could not be answered: said so."""
    if shown_labels(scheme, record) == [] and not scheme.has_free_response:
        return f"item {record.id!r} lists none of the scheme's labels to show under {scheme.dynamic_options_field!r}"
    return None


def distinct_texts(cls: type, values: list[str], info: ValidationInfo) -> list[str]:
    """A scheme's list of options (verdicts, categories, acts) as a validator: each a different text, none empty,
    because the page tells them apart by their text. `_distinct = field_validator("options")(distinct_texts)`."""
    if any(not value.strip() for value in values) or len(set(values)) < len(values):
        raise ValueError(f"{info.field_name} must be different texts, none empty")
    return values


def no_repeats(values: list[str], where: str, what: str) -> None:
    """A list whose values must differ (labels, link types, roles): the first repeated one named."""
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"two {where} have the {what} {value!r}; each must be different")
        seen.add(value)



class AnswerProblem(ValueError):
    """An answer that does not fit its scheme; the message is for the annotator (the page adds where)."""


@dataclass(frozen=True)
class Record:
    """An item as a scheme sees it: its text and its other fields."""

    id: str
    text: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def options(self, key: str, size: int | None = None) -> list[str]:
        """The things a pairwise or best-worst scheme compares: the list under `key` (strings)."""
        value = self.fields.get(key)
        if not isinstance(value, list) or not value or (size is not None and len(value) != size):
            wanted = f"list of {size}" if size else "list"
            raise AnswerProblem(f"item {self.id!r} has no {wanted} under {key!r} to compare")
        return [str(entry) for entry in value]


@dataclass(frozen=True)
class Fields:
    """The submitted form fields of one scheme on one item: "<prefix>" and "<prefix>-<part>"."""

    raw: Mapping[str, Any]
    prefix: str

    def get(self, part: str = "", longest: int | None = None) -> str:
        """The field's text, stripped; cut to `longest` characters and stripped again, so that an answer cut at a
        space keeps no trailing space and reads back as itself from its own form (a suggestion, a model's)."""
        value = self.raw.get(f"{self.prefix}-{part}" if part else self.prefix)
        text = "" if value is None else str(value).strip()
        return text if longest is None else text[:longest].rstrip()

    def part(self, part: str) -> Fields:
        """The fields of one part ("<prefix>-<part>") as a scheme's own, to read with the same helpers."""
        return Fields(self.raw, f"{self.prefix}-{part}")


WIDGETS = Path(__file__).resolve().parent.parent / "templates" / "designs" / "widgets"
STATIC = Path(__file__).resolve().parent.parent / "static"
LEVELS = ("nominal", "ordinal", "interval", None)


class SchemeType:
    """One scheme type. Its module's subclass sets every ClassVar below without a default, and `read` and
    `answer_schema`; the rest has defaults a type overrides where it differs."""

    name: ClassVar[str]  # its annotation_type
    settings: ClassVar[type[SchemeBase]]  # the pydantic model of its keys in a design file
    # The aggregations that fit its answers (designs.aggregate), the first its default.
    aggregators: ClassVar[tuple[str, ...]]
    # Potato's keys of a scheme of this type that carry over unchanged (our names are Potato's).
    potato_keys: ClassVar[tuple[str, ...]]
    # Potato's keys read and not run because Potato's own page does not run them either, each with what happens
    # (the import's report says it, not that the key was dropped).
    potato_said: ClassVar[dict[str, str]] = {}
    # Potato shows its labels humanized ("not_sure" as "Not Sure") unless the scheme says humanize_labels: false,
    # storing the name as written; the import gives each label that text to show (designs.potato).
    potato_humanizes: ClassVar[bool] = False
    # The name of the one input Potato's form has for the type (a slider's "slider"), whose value is the answer;
    # empty where Potato stores each picked label under its own name.
    potato_input: ClassVar[str] = ""
    # Potato's page keeps the whole answer as JSON in one hidden input of the scheme's name (a triad test, a
    # trajectory's steps), written as its page writes it: compact, the text as typed, each object's keys in the
    # order its page writes them (`potato_order`; a stored answer's own order is not kept: PostgreSQL's jsonb sorts
    # keys), see `potato_ordered`.
    potato_json: ClassVar[bool] = False
    potato_order: ClassVar[tuple[str, ...]] = ()
    # Other Potato annotation types this type runs (Potato's vas is a slider); potato_alias rewrites one.
    potato_aliases: ClassVar[tuple[str, ...]] = ()
    # Potato draws the sets it compares from single items, by the config's bws_config (designs.potato).
    potato_draws_sets: ClassVar[bool] = False
    # Krippendorff's level of measurement for its answers, or None when answers are not compared (free text).
    level: ClassVar[str | None] = "nominal"
    # Its answer is one category of a fixed set (Fleiss' kappa applies; a binary one is an item's one label).
    categorical: ClassVar[bool] = False
    # Its widget is a group of choices asked of every item: its question can stand once above the items.
    asked_once: ClassVar[bool] = False
    # It stores an answer (pure display text does not).
    answers: ClassVar[bool] = True
    # Its answers are spans of the item's text, which other schemes (links) may name.
    marks_text: ClassVar[bool] = False
    # Its answers name objects kept for the whole batch and shared by everyone in it (a multi-document event
    # registry, designs.models.SharedEvent): its page needs this site while people work, and the export writes them.
    keeps_shared: ClassVar[bool] = False
    # It may be asked of each node of a conversation tree (tree_annotation's node_scheme): one value, one field.
    nests: ClassVar[bool] = False
    # Label Studio's control tags it stands for (designs.labelstudio reads them; `labelstudio_claims` decides between
    # two types of one tag, a single and a multiple Choices).
    labelstudio_tags: ClassVar[tuple[str, ...]] = ()
    # How the page's script (design.js) treats its widget, set on the widget's element as data attributes:
    # `value` how its answer is read ("checked": the ticked labels, "spans", "every": one pick per row, "texts":
    # its inputs' values, answered when any is filled; none: the one input), `badges` a key shown beside each
    # choice, `keyAction` what a key does ("mark" a span, "toggle" a box; none: pick), `asks` "0" when it asks
    # nothing, `distinct` "1" when its picks (best and worst) must differ. A widget's own script marks the widget
    # `data-invalid` while its answer cannot be sent (points not all shared), which keeps the item open.
    page: ClassVar[dict[str, str]] = {}
    # The script its widget needs beside design.js (a static path), put only on pages that ask the type, so that
    # an MTurk question (64 KB, scripts inlined) carries only what it uses; `scripts` adds what a setting needs.
    script: ClassVar[str] = ""
    # Its widget's own stylesheet (a static path), likewise put only on the pages that ask the type: the site's
    # stylesheet is inlined whole into every MTurk question.
    style: ClassVar[str] = ""

    @property
    def widget(self) -> str:
        return f"designs/widgets/{self.name}.html"

    def read(self, scheme: Any, fields: Fields, record: Record) -> Any:
        """The answer in the form, None when the annotator gave none; AnswerProblem when it does not fit."""
        raise NotImplementedError

    def compared_size(self, scheme: Any) -> int | None:
        """How many things an item holds under the scheme's items_key to be compared (a pair, a set), or None for
        a type that compares nothing."""
        return None

    def item_problem(self, scheme: Any, record: Record) -> str | None:
        """What keeps `record` from being answered on `scheme` (a pair or set to compare missing), or None: an
        item file is refused for it before a batch is made, not found out by an annotator who cannot submit."""
        size = self.compared_size(scheme)
        if size is None:
            return None
        try:
            record.options(scheme.items_key, size)
        except AnswerProblem as problem:
            return str(problem)
        return None

    def references(self, scheme: Any, design: Any) -> list[tuple[tuple, str]]:
        """Names in the scheme that point nowhere in `design` (the scheme whose spans it links): (its key's path
        under the scheme, what is wrong) for each."""
        return []

    def check_answers(self, scheme: Any, value: Any, answers: dict[str, Any]) -> None:
        """AnswerProblem when `value` does not fit the item's other answers (a link naming a span not marked)."""

    def answer_schema(self, scheme: Any) -> dict[str, Any]:
        """The JSON Schema an answer of `scheme` fits (what `read` returns, and what an export row's value is)."""
        raise NotImplementedError

    def one_label(self, scheme: Any) -> bool:
        """Whether an answer of `scheme` is one label, the item's (spot checks, the agreement rules)."""
        return self.categorical

    def units(self, scheme: Any, value: Any, text: str = "") -> dict[Any, Any]:
        """The answer as {unit: comparable value} for agreement ("" for the item itself): a multiselect answer is
        one unit per label, a multirate answer one per row, spans one per character of `text`."""
        return {"": value}

    def combine(self, scheme: Any, values: list[Any]) -> Any:
        """The answers of one item as one, by majority (the type's own way where a value is a set or a grid)."""
        return majority(values)

    def keys(self, scheme: Any) -> dict[str, str]:
        """Keyboard key -> the value it picks, for the page."""
        return {}

    def points(self, scheme: Any) -> list[int]:
        """The points of a scale the widget draws (none for a type without one)."""
        return []

    def scripts(self, scheme: Any) -> list[str]:
        """The scripts a page asking `scheme` needs beside design.js: the type's `script`, and any its settings add."""
        return [self.script] if self.script else []

    def widget_context(self, scheme: Any, record: Record, field: str, keys: dict[str, str]) -> dict[str, Any]:
        """What the widget needs of one item beyond its field (the words to mark, the boxes and their rules);
        `keys` are the scheme's keys on this page (key -> choice), none taken by another scheme."""
        return {}

    def treatment(self, scheme: Any) -> tuple[str, str] | None:
        """The factor and level of the design's conditions whose people are asked the scheme's treatment form (a
        list experiment's sensitive statement), for a type whose answers are read by comparing the conditions'
        groups (designs.export.conditions_summary); None for most."""
        return None

    def draws(self, scheme: Any) -> str | None:
        """The item field the widget draws itself (a conversation tree), which the page then does not show again."""
        return None

    def potato_answer(self, scheme: Any, value: Any, record: Any) -> dict[str, Any]:
        """The answer as Potato's own export writes it (the potato export format): {"labels": {input: value}}, each
        picked label under its own name with itself as the value, as text, or {"spans": [...]}. A type whose Potato
        form has one input of its own name (`potato_input`) or several (the best and the worst) says so itself."""
        if self.potato_input:
            return {"labels": {self.potato_input: potato_text(value)}}
        if self.potato_json:
            shown = in_order(self.potato_ordered(scheme, value, record), self.potato_order)
            return {"labels": {scheme.name: json.dumps(shown, ensure_ascii=False, separators=(",", ":"))}}
        labels = {}
        for text in map(potato_text, value if isinstance(value, list) else [value]):
            # A free response is Potato's free_response input; a picked label is stored under its own name.
            labels["free_response" if text.startswith(OTHER) else text] = text.removeprefix(OTHER)
        return {"labels": labels}

    def potato_ordered(self, scheme: Any, value: Any, record: Any) -> Any:
        """An answer kept as JSON with its objects keyed by data (agents, behaviours) in the order Potato's page
        writes them (the scheme's or the item's order); the fixed keys follow `potato_order` by themselves."""
        return value

    def potato_alias_answer(self, alias: str, scheme: Any, value: Any, record: Any,
                            settings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer in the form of the Potato type `alias` (one of potato_aliases) the scheme was imported as, as
        Potato stores that type's inputs (`settings`: what that form needs of the Potato scheme that ours does not
        keep, export.potato_settings); this type's own form where they are the same."""
        return self.potato_answer(scheme, value, record)

    def potato_fields(self, scheme: Any, saved: dict[str, Any], record: Any) -> dict[str, str]:
        """What Potato saved for the scheme on one item ({"labels": {input: value}, "spans": [...]}, as its export
        reads a user_state.json) as the form fields this type's widget would send ({} when nothing was saved), for
        `read` to read as a person's answer: the way back from potato_answer. A type kept as JSON sends it as its
        page wrote it. NotImplementedError where this type's own Potato form is not read back."""
        if type(self).potato_answer is not SchemeType.potato_answer:
            raise NotImplementedError(f"Potato's saved {self.name} answers are not read back here")
        labels = saved.get("labels") or {}
        if self.potato_input:
            found = labels.get(self.potato_input)
            return {} if found in (None, "") else {"": str(found)}
        if self.potato_json:  # the answer, its keys in the order Potato's page writes them
            return self.form_fields(scheme, json.loads(labels[scheme.name]), record) if labels.get(scheme.name) else {}
        picked = [OTHER + str(text) if key == "free_response" else key for key, text in labels.items()
                  if text not in (None, False, "", "false")]
        if not picked:
            return {}
        if self.answer_schema(scheme).get("type") == "array":
            return self.form_fields(scheme, picked, record)
        if len(picked) > 1:  # Potato before its single-select fix could keep an earlier pick beside the last
            raise ValueError(f"{', '.join(picked)} were saved where the scheme takes one")
        return self.form_fields(scheme, picked[0], record)

    def potato_alias_fields(self, alias: str, scheme: Any, saved: dict[str, Any], record: Any,
                            settings: dict[str, Any] | None = None) -> dict[str, str]:
        """The way back from potato_alias_answer: what Potato saved for a scheme imported as its type `alias`."""
        if type(self).potato_alias_answer is not SchemeType.potato_alias_answer:
            raise NotImplementedError(f"Potato's saved {alias} answers are not read back here")
        return self.potato_fields(scheme, saved, record)

    def potato_scores(self, scheme: Any, value: Any, record: Any) -> dict[str, int]:
        """The score columns Potato's csv export adds for the scheme on every record, answered (`value`) or not
        (None): a cloze's blanks right against their keys. None for most types."""
        return {}

    def form_fields(self, scheme: Any, value: Any, record: Any = None) -> dict[str, str]:
        """An answer as the form fields its widget sends ({part: text}, "" the scheme's own field), so a page can
        start with it (a model's suggestion) and an answer given as a value (a model's, another tool's) is read as
        a person's is; `read` gives the answer back. `record` is the item, for a type whose fields number what the
        item shows (best-worst). {} for a type a page cannot start with an answer."""
        return {}

    def from_labelstudio_results(self, scheme: Any, results: list[dict], regions: dict[str, Any]) -> Any:
        """Label Studio results of this scheme's control (a prediction's) as an answer, or None. `regions` maps the
        span results read so far by their ids (what a relation names) to (scheme, span)."""
        return None

    def labelstudio_claims(self, control: Any) -> bool:
        """Whether this type runs a Label Studio control (designs.labelstudio.Tag) of one of its labelstudio_tags."""
        return control.tag in self.labelstudio_tags

    def from_labelstudio(self, control: Any, importer: Any) -> dict[str, Any]:
        """A Label Studio control tag as this type's scheme keys (its name, question, requirement and visibility
        are the importer's); ValueError says what cannot be carried over. `importer.ignore(control, attribute)`
        names an attribute left behind."""
        raise NotImplementedError(f"{self.name} runs no Label Studio tag")

    def labelstudio_control(self, scheme: Any, to_name: str) -> str:
        """The scheme as a Label Studio control tag (XML) on the object `to_name` (its own objects' names, comma-joined,
        when it has labelstudio_objects), or "" when Label Studio has none for it (its answers are then left out of
        that export)."""
        return ""

    def check_shared(self, scheme: Any, value: Any, kept: set[str]) -> None:
        """For a type that keeps_shared: AnswerProblem where an answer names an object the batch does not keep
        (`kept`: the keys of its designs.models.SharedEvent rows of this scheme), checked when a person submits."""

    def labelstudio_question(self, scheme: Any) -> str:
        """The Header asking the scheme in a Label Studio config ("" for none): its question."""
        return scheme.description

    def labelstudio_names(self, scheme: Any) -> list[str]:
        """The names of the Label Studio controls whose results make the scheme's answer: its own."""
        return [scheme.name]

    def labelstudio_gather(self, schemes: list[dict[str, Any]], importer: Any) -> None:
        """Put together, in `schemes` (as the import read them, one a control), those that are one scheme of this
        type asked by several controls (a grid's rows); most types have none."""

    def labelstudio_task_choices(self, scheme: dict[str, Any], listed: list[list[str]], where: str) -> str:
        """An imported scheme whose choices each task gives (value="$field"), from every task's (`listed`, a list a
        task, each in the tasks' order): its labels are every task's, in the order first given; what the report
        notes of it is returned. ValueError says what does not fit (`where`: the tasks file)."""
        scheme["labels"] = list(dict.fromkeys(value for values in listed for value in values))
        if not scheme["labels"]:
            raise ValueError(f"{where}: no task gives a choice")
        return f"each item shows its task's {scheme['dynamic_options_field']}, of {len(scheme['labels'])} in all"

    def labelstudio_objects(self, scheme: Any) -> list[tuple[str, str]]:
        """The object tags the control asks about when that is not the item's text, as (tag name, task field): the
        two things a pairwise scheme compares, the list a ranking orders. The object is named by its field."""
        return []

    def labelstudio_data(self, scheme: Any, record: Any) -> dict[str, Any]:
        """The task data those objects read, from the item (record: its fields)."""
        return {}

    def labelstudio_value(self, scheme: Any, value: Any) -> dict[str, Any]:
        """An answer as a Label Studio result's value ({"choices": [...]}, {"rating": 4}); spans and links, which are
        results of their own, say so in labelstudio_results."""
        raise NotImplementedError(f"{self.name} has no Label Studio result")

    def labelstudio_results(self, scheme: Any, value: Any, to_name: str, regions: dict[tuple, str]) -> list[dict]:
        """An answer as Label Studio results (without their ids, from_name and to_name, which the export adds unless
        a result names its own to_name): [{"type", "value"}], or for a span, one result a region, its id `regions`
        given to links."""
        return [{"type": self.labelstudio_tags[0].lower(), "value": self.labelstudio_value(scheme, value)}]

    def told(self, scheme: Any, record: Record | None = None) -> str:
        """What a language model is told of the scheme on `record` beyond its question, instructions and labels
        (the rows it answers, the profiles it chooses among), or ""; `record` is None where the item is not known
        (the prompt's version)."""
        return ""

    def card_labels(self, scheme: Any) -> str:
        """What the dataset card's labels column says of the scheme."""
        return ", ".join(label.name for label in getattr(scheme, "labels", []) or [])

    def potato_split(self, scheme: dict[str, Any]) -> list[dict[str, Any]] | None:
        """A Potato scheme this type writes as several of its own (as Potato schemes), or None; ValueError says
        what is missing."""
        return None

    def potato_claims(self, scheme: dict[str, Any]) -> bool:
        """Whether this type runs the Potato scheme, of one of its potato_aliases: a type whose alias is shared with
        another by its settings (a bid typed or on a slider) says which of them it takes."""
        return scheme.get("annotation_type") in self.potato_aliases

    def potato_alias(self, scheme: dict[str, Any], importer: Any) -> tuple[dict[str, Any], str]:
        """A Potato scheme of one of `potato_aliases` as this type's own keys (its name, description, display logic
        and requirement carry over by themselves), and what changes (said in the import's report)."""
        raise NotImplementedError(f"{self.name} runs no other Potato type")

    def from_potato(self, converted: dict[str, Any], importer: Any) -> list[dict[str, Any]]:
        """A Potato scheme (its keys that carry over, in `converted`) as this type's scheme or schemes; the
        importer (designs.potato) names them, reads label files and keeps notes."""
        return [converted]


OTHER = "other: "  # how a free response is stored: after this, what the annotator wrote in the Other box
OTHER_SCHEMA = {"type": "string", "pattern": f"^{OTHER}", "maxLength": len(OTHER) + 500}  # an answer's Other


def free_response(fields: Fields) -> str | None:
    """What the annotator wrote in a scheme's Other box, as stored (`other: …`, at most 500 characters), or None."""
    text = fields.get("free", 500)
    return f"{OTHER}{text}" if text else None


def choices_control(scheme: Any, to_name: str, choice: str) -> str:
    """A labelled scheme as Label Studio's Choices tag: its labels the choices, their keys the hotkeys."""
    options = "".join(f"<Choice value={quoteattr(label.name)}"
                      + (f" hotkey={quoteattr(label.key)}" if label.key else "")
                      + (f" hint={quoteattr(label.tooltip)}" if label.tooltip else "") + "/>"
                      for label in scheme.labels)
    return (f"<Choices name={quoteattr(scheme.name)} toName={quoteattr(to_name)} choice=\"{choice}\""
            + (' required="true"' if scheme.required else "") + f">{options}</Choices>")


def in_order(value: Any, order: tuple[str, ...]) -> Any:
    """`value` with the keys of each of its objects, at any depth, that are named in `order` first, in that order,
    then the rest as they are."""
    if isinstance(value, dict):
        keys = [key for key in order if key in value] + [key for key in value if key not in order]
        return {key: in_order(value[key], order) for key in keys}
    if isinstance(value, list):
        return [in_order(entry, order) for entry in value]
    return value


def potato_text(value: Any) -> str:
    """A value as Potato stores it: text (a likert point 4 is "4", a slider's 2.5 is "2.5")."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # as typed: 2, not 2.0
    return str(value)


def potato_json(key: str, value: Any) -> str:
    """An answer Potato keeps as JSON in one hidden input, as its page's script writes it ({"bid":4.5}: compact,
    a whole number without its point)."""
    def whole(number: Any) -> Any:
        return int(number) if isinstance(number, float) and number.is_integer() else number
    found = [whole(part) for part in value] if isinstance(value, list) else whole(value)
    return json.dumps({key: found}, separators=(",", ":"), ensure_ascii=False)


def missing_parts(kind: SchemeType, widgets: Path = WIDGETS) -> list[str]:
    """What a scheme type lacks of what every type must have (tests/designs/test_scheme_types.py asks it of each)."""
    missing = [part for part in ("name", "settings", "aggregators", "potato_keys") if not hasattr(kind, part)]
    if missing:
        return missing
    annotation = kind.settings.model_fields.get("annotation_type") if issubclass(kind.settings, SchemeBase) else None
    if annotation is None or getattr(annotation.annotation, "__args__", ()) != (kind.name,):
        missing.append(f"settings: a SchemeBase model whose annotation_type is Literal[{kind.name!r}]")
    else:
        missing += [f"potato_keys: {key} is not a key of its settings" for key in kind.potato_keys
                    if key not in kind.settings.model_fields]
    if not kind.aggregators:
        missing.append("aggregators: at least one (the first is the default)")
    if kind.level not in LEVELS:
        missing.append(f"level: one of {LEVELS}")
    for method in ("read", "answer_schema"):
        if getattr(type(kind), method) is getattr(SchemeType, method):
            missing.append(method)
    if not (widgets / f"{kind.name}.html").is_file():
        missing.append(f"widget: {widgets.name}/{kind.name}.html")
    for path in (kind.script, kind.style):
        if path and not (STATIC / path).is_file():
            missing.append(f"{path}: not in designs/static")
    unknown = set(kind.page) - {"value", "badges", "keyAction", "asks", "distinct"}
    if unknown:
        missing.append(f"page: unknown {', '.join(sorted(unknown))}")
    return missing


class SchemeTypes(Registry[SchemeType]):
    """The registered scheme types, in the order their modules register (the schema and the docs list them so)."""

    def __init__(self) -> None:
        super().__init__("scheme type")
        self.order: list[str] = []

    def register(self, name: str, entry: SchemeType) -> SchemeType:
        if name not in self.order:
            self.order.append(name)
        return super().register(name, entry)

    def in_order(self) -> list[SchemeType]:
        return [self.get(name) for name in self.order]

    def of(self, scheme: Any) -> SchemeType:
        """The type of a scheme (a settings object)."""
        return self.get(scheme.annotation_type)


SCHEME_TYPES = SchemeTypes()


def scheme_type(cls: type[SchemeType]) -> type[SchemeType]:
    SCHEME_TYPES.register(cls.name, cls())
    return cls


def an(word: str) -> str:
    """The word after its article, as a message says it: "an ATTACK", "a MOVE" (by its first letter)."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def pick(value: str, allowed: list[str], what: str) -> str:
    if value not in allowed:
        shown = ", ".join(allowed[:8]) + (" …" if len(allowed) > 8 else "")
        raise AnswerProblem(f"{value[:40]!r} is not one of the {what} ({shown})")
    return value


def number(value: str, what: str) -> float:
    try:
        found = float(value)
    except ValueError:
        raise AnswerProblem(f"{value[:20]!r} is not a number") from None
    if found != found or found in (float("inf"), float("-inf")):
        raise AnswerProblem(f"{what} must be a finite number")
    return int(found) if found.is_integer() else found


def majority(values: list[Any]) -> Any:
    """The most given value; None on a tie for first place."""
    counts = Counter(repr(value) for value in values)
    ranked = counts.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return next(value for value in values if repr(value) == ranked[0][0])


def one_of(values: list[str]) -> dict[str, Any]:
    """An answer's schema: one of these strings."""
    return {"type": "string", "enum": list(values)}


def read_json(fields: Fields, what: str, redo: str, limit: int = 20_000) -> Any:
    """The JSON a page's widget wrote into the scheme's field (spans, an order), or None when it wrote none;
    AnswerProblem when it cannot be read, saying to reload the page and `redo` ("mark them again")."""
    value = fields.get()
    if not value or value == "[]":
        return None
    if len(value) > limit:
        raise AnswerProblem(f"the {what} field is too long; reload the page and {redo}")
    try:
        return json.loads(value)
    except (ValueError, RecursionError):  # not JSON, or lists nested thousands deep (no widget writes either)
        raise AnswerProblem(f"the {what} could not be read; reload the page and {redo}") from None


def read_number(fields, low, high, step):
    """A number typed or slid, within [low, high] and on a step from low; None when none was given."""
    value = fields.get()
    if not value:
        return None
    found = number(value, "the answer")
    if (low is not None and found < low) or (high is not None and found > high):
        raise AnswerProblem(f"{found:g} is outside {_shown(low)} to {_shown(high)}")
    if step and low is not None and abs(round((found - low) / step) * step - (found - low)) > 1e-9:
        raise AnswerProblem(f"{found:g} is not on a step of {step:g} from {low:g}")
    return found


def edit_distances(original: str, edited: str) -> dict[str, int]:
    """How far an edited text is from where it started, as Potato's page counts it: characters, and words split
    at spaces (its text_edit and trajectory_edit records carry both). Its script's characters are UTF-16 units, so
    an emoji is two of them: counted here the same way, or the record would differ from Potato's."""
    return {"edit_distance_chars": levenshtein(_utf16(original), _utf16(edited)),
            "edit_distance_words": levenshtein(original.split(), edited.split())}


def _utf16(text: str) -> list[bytes]:
    data = text.encode("utf-16-le")
    return [data[place:place + 2] for place in range(0, len(data), 2)]


def levenshtein(first, second) -> int:
    """Levenshtein distance between two sequences (characters of a text, or its words)."""
    previous = list(range(len(second) + 1))
    for i, one in enumerate(first, 1):
        current = [i]
        for j, other in enumerate(second, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (one != other)))
        previous = current
    return previous[-1]


def point(text: str, size: int, where: str, what: str = "point") -> int:
    """A point of a scale 1..size typed or picked (a turn's rating, an agent's score), AnswerProblem naming `where`."""
    found = number(text, f"{where}'s {what}")
    if found != int(found) or not 1 <= found <= size:
        raise AnswerProblem(f"{where}: give a {what} from 1 to {size}")
    return int(found)


def number_schema(low, high):
    schema = {"type": "number"}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


def _shown(bound):
    return "…" if bound is None else f"{bound:g}"
