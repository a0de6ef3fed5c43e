"""The typed model of a design file: the one source of the YAML loader's checks, the shipped JSON Schema
(designs/schema.json), the generic task page and the exports. Django-free.

The scheme vocabulary is Potato's (`annotation_schemes`, `annotation_type`, `labels`, `label_requirement`,
`display_logic`); what Potato has no word for (items, HIT packing, providers and money, the screening test,
gold, aggregation, stages, components, export) sits in keys of its own.
"""

from __future__ import annotations

import difflib
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

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
    name: str = Field(pattern=NAME, description="unique in the design; the answer's key")
    description: str = Field("", description="the question the annotator is asked")
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
        _no_repeats([label.name for label in labels], "labels", "label")
        _no_repeats([label.key for label in labels if label.key], "labels", "key_value")
        return labels

    def keys(self) -> dict[str, str]:
        """Keyboard key -> label name: the labels' own keys, else 1..9 when sequential_key_binding is set."""
        own = {label.key: label.name for label in self.labels if label.key}
        if own or not self.sequential_key_binding:
            return own
        return {str(number): label.name for number, label in enumerate(self.labels[:9], 1)}


def _no_repeats(values: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"two {where} have the {what} {value!r}; each must be different")
        seen.add(value)


class Radio(LabelledScheme):
    """One label of several, as radio buttons (keys pick them when the labels have keys)."""

    annotation_type: Literal["radio"]
    horizontal: bool = Field(False, description="the labels in a row instead of a column")


class Select(LabelledScheme):
    """One label of several, from a drop-down list (for long lists)."""

    annotation_type: Literal["select"]


class Multiselect(LabelledScheme):
    """Any number of labels, as checkboxes."""

    annotation_type: Literal["multiselect"]
    min_selected: int = Field(0, ge=0, description="fewest labels an answer may tick")
    max_selected: int | None = Field(None, ge=1, description="most labels an answer may tick")


class Likert(SchemeBase):
    """A point on a scale of `size` points (1..size), its ends named; agreement is ordinal."""

    annotation_type: Literal["likert"]
    size: int = Field(5, ge=2, le=11, description="how many points")
    min_label: str = Field("", description="the lowest point's name")
    max_label: str = Field("", description="the highest point's name")
    sequential_key_binding: bool = Field(True, description="keys 1..size pick the points")


class Slider(SchemeBase):
    """A number on a slider; agreement is interval."""

    annotation_type: Literal["slider"]
    min_value: float = 0
    max_value: float = 100
    starting_value: float | None = Field(None, description="where the handle starts (default: the middle)")
    step: float = Field(1, gt=0)

    @model_validator(mode="after")
    def _range(self) -> Slider:
        if self.min_value >= self.max_value:
            raise ValueError(f"min_value {self.min_value} must be below max_value {self.max_value}")
        return self


class Number(SchemeBase):
    """A number typed in a box, checked against min and max on the page and on the server."""

    annotation_type: Literal["number"]
    min: float | None = None
    max: float | None = None
    step: float | None = Field(None, gt=0, description="the answer is a multiple of it (1: whole numbers)")


class EditLimits(Strict):
    """How far an answer that starts as an item's text (prefill_key) may move from it, in words: the word edit
    distance and the words kept in order (core.stories.edit_size), as shares of the prefilled text's words."""

    max_changed: float | None = Field(None, ge=0, le=1, description="share of the words changed, at most")
    min_kept: float | None = Field(None, ge=0, le=1, description="share of the words kept in order, at least")
    must_change: bool = Field(True, description="an answer left as it was prefilled is refused")


class Text(SchemeBase):
    """Free text, held to quality rules (core.textrules) checked as it is typed and again on the server."""

    annotation_type: Literal["text"]
    textarea: bool = False
    multiline: bool = False
    single_line: bool = False
    rows: int = Field(3, ge=1, le=30)
    labels: list[Label] = Field(default_factory=list, description="one box per label; none: a single box",
                               json_schema_extra=labels_in_any_form)
    min_words: int = Field(0, ge=0)
    max_words: int | None = Field(None, ge=1)
    max_chars: int = Field(2000, ge=1, le=20000)
    must_differ_from: str | None = Field(None, description="an item field the text may not copy")
    max_overlap: float | None = Field(None, ge=0, le=1, description="share of words found in must_differ_from")
    banned: list[str] = Field(default_factory=list, description="words the text may not use")
    must_mention: str | None = Field(None, description="an item field (e.g. the highlighted entity) whose words "
                                                       "every text must contain")
    rules_key: str | None = Field(None, description="an item field holding that item's own rules, an object of "
                                                    "min_words, max_words, max_overlap, banned")
    prefill_key: str | None = Field(None, description="an item field the boxes start with, to be edited (a list "
                                                      "fills one box a label)")
    edit: EditLimits | None = Field(None, description="how far the answer may move from the prefilled text")


class Span(LabelledScheme):
    """Labelled character spans of the item's text (the SemEval antecedent/consequent page is one)."""

    annotation_type: Literal["span"]
    one_per_label: bool = Field(False, description="at most one span of each label")
    required_labels: list[str] = Field(default_factory=list, description="labels every answer must mark")
    allow_overlap: bool = False

    @model_validator(mode="after")
    def _known_required(self) -> Span:
        names = {label.name for label in self.labels}
        for name in self.required_labels:
            if name not in names:
                raise ValueError(f"required_labels names {name!r}, which is not one of its labels")
        return self


class Scale(Strict):
    """A pairwise scheme's scale (mode: scale): from strongly A (min) to strongly B (max)."""

    min: int = -3
    max: int = 3
    step: int = Field(1, ge=1)
    min_label: str = ""
    max_label: str = ""


class Pairwise(SchemeBase):
    """Which of two things is better (A, B, or a tie), or how much better on a scale."""

    annotation_type: Literal["pairwise"]
    mode: Literal["binary", "scale"] = Field("binary", description="binary: pick one; scale: a point from A to B")
    items_key: str = Field("pair", description="the item field holding the two things compared")
    labels: list[Label] = Field(default_factory=lambda: [Label(name="A"), Label(name="B")],
                               json_schema_extra=labels_in_any_form)
    allow_tie: bool = Field(False, description="offer a tie as a third answer")
    tie_label: str = Field("Equal", description="the tie's name")
    tie_labels: list[str] = Field(default_factory=list, description="several ways to call it even (equally good, "
                                                                    "equally bad), instead of tie_label")
    scale: Scale = Field(default_factory=Scale)


class BestWorst(SchemeBase):
    """Best-worst scaling: the best and the worst of a tuple; scores by counting across tuples."""

    annotation_type: Literal["bws"]
    items_key: str = Field("tuple", description="the item field holding the tuple")
    tuple_size: int = Field(4, ge=3, le=10, description="how many things each tuple holds")
    best_description: str = Field("Best", description="what the best pick is called on the page")
    worst_description: str = Field("Worst", description="what the worst pick is called on the page")


class Multirate(SchemeBase):
    """A grid: each option (row) gets one label (column)."""

    annotation_type: Literal["multirate"]
    options: list[str] = Field(min_length=1, description="the rows rated")
    labels: list[Label] = Field(min_length=2, description="the columns: one per row is picked",
                               json_schema_extra=labels_in_any_form)


class PureDisplay(SchemeBase):
    """Text shown between the questions (its description); asks nothing and stores nothing."""

    annotation_type: Literal["pure_display"]


Scheme = Annotated[Radio | Select | Multiselect | Likert | Slider | Number | Text | Span | Pairwise | BestWorst
                   | Multirate | PureDisplay, Field(discriminator="annotation_type")]
# The aggregations that fit each scheme type, the first its default: kept in the model so that a design's
# `aggregation` is checked when it is loaded (designs.schemes reads them from here).
AGGREGATORS = {
    "radio": ("majority", "threshold", "dawid-skene", "mace", "none"),
    "select": ("majority", "threshold", "dawid-skene", "mace", "none"),
    "multiselect": ("majority", "none"), "likert": ("median", "mean", "majority", "none"),
    "slider": ("mean", "median", "none"), "number": ("mean", "median", "none"), "text": ("none",),
    "span": ("spans", "none"), "pairwise": ("majority", "bradley-terry", "mean", "none"), "bws": ("counting", "none"),
    "multirate": ("majority", "none"), "pure_display": ("none",),
}
SCHEME_TYPES = ("radio", "select", "multiselect", "likert", "slider", "number", "text", "span", "pairwise", "bws",
                "multirate", "pure_display")


class Items(Strict):
    """Where the fields of an items file are: which is the id, which the text, what else is shown."""

    id_key: str = Field("id", description="the field holding each item's unique id")
    text_key: str = Field("text", description="the field holding the text annotated")
    show: list[str] = Field(default_factory=list, description="other item fields shown above the text")
    show_after: list[str] = Field(default_factory=list, description="other item fields shown below the text (a "
                                                                    "story's later sentences)")
    noun: str = Field("item", description="what one item is called on the page (sentence, question, story)")
    gold_key: str | None = Field(None, description="the field holding an item's known answer, {scheme: value}")
    group_key: str | None = Field(None, description="the field HITs are interleaved by, e.g. the domain")
    highlight_key: str | None = Field(None, description="a field whose words are marked in the text (an entity)")
    highlight_start_key: str | None = Field(None, description="the field with the highlight's character offset; "
                                                              "without it, its first place as whole words")
    prompt_key: str | None = Field(None, description="a field holding the item's own instruction, shown above its "
                                                     "schemes")


class Hits(Strict):
    """How items are packed into HITs and what a HIT pays."""

    items_per_hit: int = Field(10, ge=1, le=100)
    assignments_per_hit: int = Field(3, ge=1, le=100, description="how many people answer each HIT")
    reward: Decimal = Field(Decimal("0.50"), ge=0, max_digits=8, decimal_places=2,
                            description="paid per assignment, in the provider's currency")
    assignment_duration: int = Field(3600, ge=60, description="seconds a worker has to submit")
    lifetime: int = Field(7 * 24 * 3600, ge=60, description="seconds the HITs stay available")
    gold_rate: float = Field(0.0, ge=0, le=1, description="share of each HIT that is known-answer items")
    budget: Decimal | None = Field(None, ge=0, description="rewards, fees and bonuses may not go past it")


class MturkSettings(Strict):
    """Who may work on MTurk: qualification requirements of every HIT."""

    locales: list[str] = Field(default_factory=list, description="country codes (US, GB, ...) workers must be in")
    min_approval_rate: int | None = Field(None, ge=0, le=100, description="percent of a worker's work approved")
    min_approved_hits: int | None = Field(None, ge=0)
    masters: bool = Field(False, description="only MTurk Masters")


class ProlificSettings(Strict):
    """Who may take the study on Prolific: its participant filters."""

    min_approval_rate: int | None = Field(None, ge=0, le=100)
    min_approved_hits: int | None = Field(None, ge=0)


class Provider(Strict):
    """The crowd a batch goes to: annotators with accounts on this site (inhouse), MTurk or Prolific."""

    name: Literal["inhouse", "mturk", "prolific"] = "inhouse"
    mturk: MturkSettings = Field(default_factory=MturkSettings)
    prolific: ProlificSettings = Field(default_factory=ProlificSettings)


class Qualification(Strict):
    """The screening test a worker must pass before working on the design's batches."""

    test: str = Field(description="the name of a screening test of the project")
    min_score: int = Field(80, ge=0, le=100, description="percent correct needed to pass")


class Rule(Strict):
    """One row of a threshold rule: an outcome when at least `min_share` of the votes (or `min_votes` of
    them) agree on `label`."""

    outcome: str = Field(description="the name the items it holds for get (positive, negative-100, ...)")
    label: str | None = Field(None, description="the label the votes agree on")
    min_votes: int | None = Field(None, ge=1)
    min_share: float | None = Field(None, gt=0, le=1)

    @field_validator("label", mode="before")
    @classmethod
    def _label_text(cls, value: Any) -> Any:
        return None if value is None else _as_label_text(value)


class Aggregation(Strict):
    """How one scheme's answers become one label per item; each scheme type admits only the methods that fit
    it (the first is its default)."""

    method: Literal["majority", "threshold", "dawid-skene", "mace", "mean", "median", "bradley-terry", "counting",
                    "spans", "none"]
    rules: list[Rule] = Field(default_factory=list, description="threshold: tried in order; first that holds")
    otherwise: str = Field("discarded", description="threshold: the outcome when no rule holds")
    min_answers: int | None = Field(None, ge=1, description="threshold: fewer answers than this leave an item "
                                                             "pending")


class Rewrite(Strict):
    """A check that fails writes the replacement itself, which goes on to be checked again by someone new."""

    scheme: str = Field(description="the stage's scheme in which a failing check writes the replacement")
    replaces: str = Field(description="the earlier stage's scheme whose answer (an item field) it replaces")


class StageHits(Strict):
    """A stage's own packing and pay, where it differs from the design's `hits` (a check paid more than a write)."""

    items_per_hit: int | None = Field(None, ge=1, le=100)
    assignments_per_hit: int | None = Field(None, ge=1, le=100)
    reward: Decimal | None = Field(None, ge=0, max_digits=8, decimal_places=2)


class Stage(Strict):
    """One stage of a multi-stage workflow: its items are an earlier stage's outputs."""

    name: str = Field(pattern=NAME)
    schemes: list[str] = Field(min_length=1, description="the design's schemes this stage asks")
    from_stage: str | None = Field(None, description="the stage whose outputs are this stage's items")
    when: Condition | None = Field(None, description="only outputs whose answer passes this go on")
    exclude_authors: bool = True
    gate: Condition | None = Field(None, description="the check an output must pass to be final")
    max_rounds: int = Field(1, ge=1, le=10, description="times an output may be sent back and redone")
    rewrite: Rewrite | None = Field(None, description="instead of sending a failed item back to from_stage, the "
                                                      "check's own rewrite goes on to be checked again")
    hits: StageHits = Field(default_factory=StageHits, description="this stage's packing and pay, where they "
                                                                   "differ from the design's hits")


class Split(Strict):
    """A train/test split of the export (SemEval's was 65/35)."""

    train: float = Field(0.65, gt=0, lt=1, description="the share of items in train")
    seed: int = Field(0, description="the same seed gives the same split")


class Export(Strict):
    """What `design export` and the export page write."""

    formats: list[Literal["csv", "jsonl", "parquet", "hf", "semeval"]] = Field(
        default_factory=lambda: ["csv", "jsonl"])
    split: Split | None = None


class Design(Strict):
    """A whole annotation project."""

    title: str = Field(min_length=1, max_length=200, description="Potato's annotation_task_name")
    description: str = ""
    instructions: str = Field("", description="shown above the task, plain text")
    keywords: list[str] = Field(default_factory=list, max_length=20,
                                description="what workers search for at the provider (MTurk's HIT keywords); "
                                            "the scheme types when none are given")
    items: Items = Field(default_factory=Items)
    annotation_schemes: list[Scheme] = Field(min_length=1)
    hits: Hits = Field(default_factory=Hits)
    provider: Provider = Field(default_factory=Provider)
    qualification: Qualification | None = None
    aggregation: dict[str, Aggregation] = Field(default_factory=dict, description="per scheme name")
    stages: list[Stage] = Field(default_factory=list)
    components: list[str] = Field(default_factory=list, description="named components (designs.components)")
    export: Export = Field(default_factory=Export)

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={
        "$id": "https://crowdset.example/designs/schema.json", "title": "crowdset design file"})

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> Design:
        # The loader asks for these itself (defer_references) so that each can name its own line.
        problems = self.reference_problems()
        if problems and not (info.context or {}).get("defer_references"):
            raise ValueError("; ".join(f"{'.'.join(map(str, path))}: {message}" for path, message in problems))
        return self

    def reference_problems(self) -> list[tuple[tuple, str]]:
        """Names that point nowhere: (path in the file, message) for each."""
        names = [scheme.name for scheme in self.annotation_schemes]
        problems = []
        for index, scheme in enumerate(self.annotation_schemes):
            if scheme.name in names[:index]:
                problems.append((("annotation_schemes", index, "name"),
                                 f"{scheme.name!r} is the name of an earlier scheme too; names must differ"))
            for number, condition in enumerate(scheme.display_logic.show_when if scheme.display_logic else []):
                if condition.schema_ not in names:
                    problems.append((("annotation_schemes", index, "display_logic", "show_when", number, "schema"),
                                     _unknown_scheme(condition.schema_, names)))
        problems += [(("annotation_schemes", index, "edit"), "an edit bound needs prefill_key, the item field "
                      "the answer starts as") for index, scheme in enumerate(self.annotation_schemes)
                     if getattr(scheme, "edit", None) is not None and not scheme.prefill_key]
        problems += [(("aggregation", name), _unknown_scheme(name, names)) for name in self.aggregation
                     if name not in names]
        for name, rule in self.aggregation.items():
            if name in names:
                kind = self.scheme(name).annotation_type
                allowed = AGGREGATORS.get(kind, ())
                if rule.method not in allowed:
                    problems.append((("aggregation", name, "method"), f"{rule.method!r} does not fit a {kind} "
                                     f"scheme; use one of {', '.join(allowed) or 'none'}"))
        from designs.components import COMPONENTS

        for index, component in enumerate(self.components):
            if component not in COMPONENTS:
                close = difflib.get_close_matches(component, COMPONENTS.names(), n=1)
                problems.append((("components", index), f"unknown component {component!r}"
                                 + (f"; did you mean {close[0]!r}?" if close else
                                    f"; known: {', '.join(COMPONENTS.names())}")))
        stages = [stage.name for stage in self.stages]
        for index, stage in enumerate(self.stages):
            if stage.name in stages[:index]:
                problems.append((("stages", index, "name"), f"{stage.name!r} names an earlier stage too"))
            problems += [(("stages", index, "schemes"), _unknown_scheme(name, names)) for name in stage.schemes
                         if name not in names]
            if stage.from_stage is None and index > 0:
                problems.append((("stages", index), f"stage {stage.name!r} comes after the first, so its items are "
                                 f"an earlier stage's outputs: give it from_stage (one of "
                                 f"{', '.join(stages[:index])})"))
            elif stage.gate is not None and index == 0:
                problems.append((("stages", index, "gate"), "the first stage has no earlier stage to send what "
                                 "fails its check back to; put the gate on a stage with from_stage"))
            if stage.rewrite is not None:
                problems += _rewrite_problems(self, index, stage)
            if stage.from_stage is not None and stage.from_stage not in stages[:index]:
                problems.append((("stages", index, "from_stage"),
                                 f"{stage.from_stage!r} is not an earlier stage; use one of "
                                 f"{', '.join(stages[:index]) or '(none: the first stage reads the items)'}"))
        return problems

    def scheme(self, name: str) -> Any:
        return next(scheme for scheme in self.annotation_schemes if scheme.name == name)


def _rewrite_problems(design: Design, index: int, stage: Stage) -> list[tuple[tuple, str]]:
    rewrite = stage.rewrite
    where = ("stages", index, "rewrite")
    if stage.gate is None:
        return [(where, "a rewrite replaces what a failed check refused: give the stage a gate")]
    problems = []
    if rewrite.scheme not in stage.schemes:
        problems.append(((*where, "scheme"), f"{rewrite.scheme!r} is not one of this stage's schemes "
                                             f"({', '.join(stage.schemes)})"))
    earlier = next((entry for entry in design.stages if entry.name == stage.from_stage), None)
    if earlier is not None and rewrite.replaces not in earlier.schemes:
        problems.append(((*where, "replaces"), f"{rewrite.replaces!r} is not a scheme of stage {earlier.name!r} "
                                               f"({', '.join(earlier.schemes)}), whose answer the item carries"))
    return problems


def _unknown_scheme(name: str, names: list[str]) -> str:
    return f"names the scheme {name!r}, which the design does not declare; its schemes are {', '.join(names)}"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "design"
