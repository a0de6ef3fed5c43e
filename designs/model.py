"""The typed model of a design file: the one source of the YAML loader's checks, the shipped JSON Schema
(designs/schema.json), the generic task page and the exports. Django-free.

The scheme vocabulary is Potato's (`annotation_schemes`, `annotation_type`, `labels`, `label_requirement`,
`display_logic`), each type's keys the settings model of its module (designs.schemes); what Potato has no word
for (items, HIT packing, providers and money, the screening test, gold, aggregation, stages, components, export)
sits in keys of its own.
"""

from __future__ import annotations

import difflib
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from core.components import COMPONENTS
from designs.conditions import CONDITION, Conditions
from designs.schemes import SCHEME_TYPES
from designs.schemes.base import NAME, Condition, SchemeBase, Strict, _as_label_text

# The scheme union, from the registered types (designs.schemes): each type's settings model, told apart by its
# annotation_type.
TYPE_NAMES = tuple(kind.name for kind in SCHEME_TYPES.in_order())
if TYPE_CHECKING:
    Scheme = SchemeBase  # what every type's settings share; the union is known only once the types are registered
else:
    Scheme = Annotated[Union[tuple(kind.settings for kind in SCHEME_TYPES.in_order())],  # noqa: UP007
                       Field(discriminator="annotation_type")]


class DialogueView(Strict):
    """How a shown dialogue is drawn beyond its turns (Potato's dialogue display options)."""

    max_height: int | str | None = Field(None, description="the dialogue's box is at most this tall and scrolls "
                                                           "inside (a number of pixels or a CSS length: 20em, 40vh)")
    indent_replies: bool = Field(False, description="each turn indented by its depth in the thread: its depth_key, "
                                                    "else counted from its reply_to_key")
    max_indent_depth: int = Field(6, ge=0, description="the deepest indent drawn (the depth is still said)")
    show_reply_lines: bool = Field(True, description="a line beside each reply, with indent_replies")
    timestamps: Literal["relative", "absolute", "epoch"] | None = Field(
        None, description="each turn's `timestamp` (seconds since 1970) shown: from the first turn (+5m), as a UTC "
                          "date, or as written")
    depth_key: str = Field("depth", description="the turn field holding its depth in the thread")
    reply_to_key: str = Field("reply_to", description="the turn field naming the turn it replies to (by its turn_id, "
                                                      "step_id or id)")
    meta_fields: list[str] = Field(default_factory=list, description="the fields of each turn's metadata (its "
                                                                     "meta_key object) shown on the turn, name: value")
    meta_key: str = Field("meta", description="the turn field holding its metadata (an object)")
    collapsed_depth: int | None = Field(None, ge=0, description="a conversation tree's replies to a node this deep "
                                                               "or deeper start folded behind the node's toggle (0: "
                                                               "the root's; none: every reply shown)")

    @field_validator("max_height")
    @classmethod
    def _length(cls, value: int | str | None) -> int | str | None:
        return css_length(value) if isinstance(value, str) else value


def css_length(value: str) -> str:
    """A length a page may put in its style (drawn from a design file, so nothing else may pass)."""
    if not re.fullmatch(r"\d+(\.\d+)?(px|em|rem|vh|%)?", value.strip()):
        raise ValueError(f"{value!r} is not a length; give pixels (400) or a CSS length (20em, 40vh, 300px, 30%)")
    return value.strip()


class Items(Strict):
    """Where the fields of an items file are: which is the id, which the text, what else is shown."""

    @field_validator("pane_width")
    @classmethod
    def _widths(cls, value: dict[str, str]) -> dict[str, str]:
        return {field: css_length(width) for field, width in value.items()}

    id_key: str = Field("id", description="the field holding each item's unique id")
    text_key: str = Field("text", description="the field holding the text annotated")
    show: list[str] = Field(default_factory=list, description="other item fields shown above the text")
    show_after: list[str] = Field(default_factory=list, description="other item fields shown below the text (a "
                                                                    "story's later sentences)")
    titles: dict[str, str] = Field(default_factory=dict, description="what a field is called on the page, as "
                                                                     "Potato's display label: a shown field's title "
                                                                     "(its name otherwise), the text's caption above "
                                                                     "it (none otherwise)")
    panes: dict[str, list[str]] = Field(default_factory=dict, description="shown fields whose entries are shown "
                                                                          "side by side, with their pane labels ([] "
                                                                          "for A, B), as Potato's pairwise display")
    pane_width: dict[str, str] = Field(default_factory=dict, description="how wide each pane of a shown field's "
                                                                        "panes is (30%, 320px; Potato's pairwise "
                                                                        "cell_width); evenly shared otherwise")
    numbered: list[str] = Field(default_factory=list, description="shown fields whose dialogue turns are numbered "
                                                                     "[1], [2], … (Potato's show_turn_numbers)")
    dialogues: dict[str, DialogueView] = Field(default_factory=dict, description="how a shown dialogue is drawn, by "
                                                                                  "its field: a height it scrolls "
                                                                                  "in, replies indented, timestamps")
    noun: str = Field("item", description="what one item is called on the page (sentence, question, story)")
    gold_key: str | None = Field(None, description="the field holding an item's known answer, {scheme: value}")
    group_key: str | None = Field(None, description="the field HITs are interleaved by, e.g. the domain")
    highlight_key: str | None = Field(None, description="a field whose words are marked in the text (an entity)")
    highlight_start_key: str | None = Field(None, description="the field with the highlight's character offset; "
                                                              "without it, its first place as whole words")
    prompt_key: str | None = Field(None, description="a field holding the item's own instruction, shown above its "
                                                     "schemes")


class Attention(Strict):
    """What a worker who answers known-answer items wrong is told, and when they may take no more of the batch's
    work (Potato's attention_checks.failure_handling)."""

    warn_after: int | None = Field(2, ge=1, description="known-answer items answered wrong before the worker is "
                                                        "warned after each submission")
    warn_message: str = Field("Please read items carefully before answering.", min_length=1)
    block_after: int | None = Field(5, ge=1, description="known-answer items answered wrong before the worker may "
                                                         "take no more of the batch's work")
    block_message: str = Field("You have been blocked due to too many incorrect attention check responses.",
                               min_length=1)
    min_response_s: float | None = Field(None, gt=0, description="a known-answer item answered sooner than this "
                                         "many seconds counts as wrong (Potato's min_response_time): measured by "
                                         "the server, from the HIT's claim to the answer first reaching it")

    @model_validator(mode="after")
    def _block_after_warning(self):
        if self.warn_after and self.block_after and self.block_after <= self.warn_after:
            raise ValueError(f"block_after ({self.block_after}) must be more than warn_after ({self.warn_after})")
        return self


class GoldFeedback(Strict):
    """What a worker is told of the known-answer items of a HIT after submitting it (Potato's
    gold_standards.feedback): how many were right, and for each one they got wrong its answer and its explanation."""

    answer: bool = Field(True, description="tell the known answer of each item got wrong")
    explanation_key: str | None = Field(None, description="the item field holding why that is the answer")


class GoldAccuracy(Strict):
    """The share of known-answer items a worker is expected to get right (Potato's gold_standards.accuracy), measured
    once they have answered evaluation_count of them. It is a measurement, as in Potato: the design report lists
    who is under it, and with gold_feedback the worker is told; it stops no one (attention does that)."""

    min_threshold: float = Field(0.7, ge=0, le=1, description="the share right expected")
    evaluation_count: int = Field(10, ge=1, description="known-answer items answered before it is measured")


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
    order: Literal["shuffled", "file"] = Field("shuffled", description="shuffled: items mixed by a seed (groups "
                                                                     "interleaved); file: in the items file's order")
    layout: Literal["page", "item"] = Field("page", description="page: a HIT's items on one page; item: one item at "
                                                                "a time, with Previous and Next (and the arrow keys)")
    attention: Attention | None = Field(None, description="warn, then stop, a worker who answers known-answer "
                                                          "items wrong (needs gold_rate)")
    gold_feedback: GoldFeedback | None = Field(None, description="after each submission, tell the worker how they "
                                                                 "did on its known-answer items (needs gold_rate)")
    gold_accuracy: GoldAccuracy | None = Field(None, description="the share of known-answer items a worker should "
                                                                 "get right: the report lists who is under it "
                                                                 "(needs gold_rate)")

    @model_validator(mode="after")
    def _attention_needs_known_answers(self):
        for name in ("attention", "gold_feedback", "gold_accuracy"):
            if getattr(self, name) is not None and not self.gold_rate:
                raise ValueError(f"{name} is about known-answer items, and gold_rate is 0: mix some in (gold_rate, "
                                 f"with items.gold_key) or leave {name} out")
        return self


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
                    "spans", "borda", "none"]
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


ExportFormat = Literal["csv", "jsonl", "parquet", "hf", "potato", "labelstudio", "semeval"]
DEFAULT_FORMATS: tuple[ExportFormat, ...] = ("csv", "jsonl")


class Export(Strict):
    """What `design export` and the export page write."""

    formats: list[ExportFormat] = Field(default_factory=lambda: list(DEFAULT_FORMATS))
    split: Split | None = None
    labelstudio_objects: dict[str, str] = Field(
        default_factory=dict, description="{item field: Label Studio object name} where they differ: the names of a "
                                          "Label Studio project's objects, which the labelstudio export keeps so its "
                                          "tasks fit the project's own config (its import writes this)")
    labelstudio_shown: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="{item field: {tag, and a Paragraphs' nameKey and textKey}} for the fields "
                                          "a Label Studio project showed as Paragraphs or HyperText: the labelstudio "
                                          "export gives them back so, as the task gave them, and spans in them as "
                                          "ParagraphLabels or HyperTextLabels (its import writes this)")
    potato_types: dict[str, str] = Field(
        default_factory=dict, description="{scheme: Potato annotation type} for schemes of a Potato type that one of "
                                          "ours runs (a vas runs as a slider): the potato export writes their "
                                          "answers in that type's own form (its import writes this)")
    potato_settings: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="{scheme: settings} a Potato type's own export form needs that the type "
                                          "running it does not keep (an error_span's severity weights and "
                                          "max_score; its import writes this)")


class Llm(Strict):
    """A language model asked as one more annotator (`manage.py design ask-model`): what it is told and how it
    samples. Where it runs (URL, key, price) is the command's, never the design file's."""

    model: str = Field("", description="the model's name at the endpoint (the command's --model overrides it)")
    prompt: str = Field("", description="said to the model after the design's instructions")
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(512, ge=1, le=32768, description="the most tokens an answer may take")
    examples: int = Field(0, ge=0, le=20, description="known-answer items shown to the model as worked examples")


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
    components: list[str] = Field(default_factory=list, description="named components (core.components)")
    export: Export = Field(default_factory=Export)
    llm: Llm = Field(default_factory=Llm, description="a language model asked as one more annotator")
    conditions: Conditions | None = Field(None, description="between-subjects conditions: each person is given "
                                                            "one level of every factor (Potato's)")

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={
        "$id": "https://crowdset.example/designs/schema.json", "title": "crowdset design file"})

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> Design:
        # The loader asks for these itself (defer_references) so that each can name its own line.
        problems = self.reference_problems()
        if problems and not (info.context or {}).get("defer_references"):
            raise ValueError("; ".join(f"{'.'.join(map(str, path))}: {message}" for path, message in problems))
        return self

    def served_per_worker(self) -> str:
        """Why each worker's page must be this site's own, served to them as they work (their condition decides
        what it holds; the events they make are kept on the site), or "": a crowd whose page is one for every
        worker of a HIT (MTurk's question) cannot run the design."""
        if self.conditions is not None:
            return "its design's conditions give each person the page of their own condition"
        shared = [scheme.name for scheme in self.annotation_schemes if SCHEME_TYPES.of(scheme).keeps_shared]
        return f"the events of {', '.join(shared)} are kept on this site while people work" if shared else ""

    def _condition_problems(self, condition: Condition) -> list[tuple[str, str]]:
        """What is wrong with display logic on a person's condition (Potato's `condition.<factor>`): a factor the
        design does not declare, or a level it does not have, which would hide the scheme from everyone."""
        factors = self.conditions.factors if self.conditions is not None else {}
        factor = condition.schema_.removeprefix(CONDITION)
        if factor not in factors:
            return [("schema", f"{condition.schema_!r} names no factor of the design's conditions "
                               f"({', '.join(factors) or 'none declared'}); declare it under conditions.factors")]
        if condition.operator not in ("equals", "not_equals", "contains", "not_contains"):
            return []
        given = condition.value if isinstance(condition.value, list) else [condition.value]
        unknown = [str(value) for value in given if str(value) not in factors[factor]]
        return [("value", f"{', '.join(map(repr, unknown))} is not a level of {factor} "
                          f"({', '.join(factors[factor])})")] if unknown else []

    def reference_problems(self) -> list[tuple[tuple, str]]:
        """Names that point nowhere: (path in the file, message) for each."""
        names = [scheme.name for scheme in self.annotation_schemes]
        problems: list[tuple[tuple, str]] = []
        for index, scheme in enumerate(self.annotation_schemes):
            if scheme.name in names[:index]:
                problems.append((("annotation_schemes", index, "name"),
                                 f"{scheme.name!r} is the name of an earlier scheme too; names must differ"))
            for number, condition in enumerate(scheme.display_logic.show_when if scheme.display_logic else []):
                if condition.schema_.startswith(CONDITION):
                    problems += [(("annotation_schemes", index, "display_logic", "show_when", number, key), message)
                                 for key, message in self._condition_problems(condition)]
                elif condition.schema_ not in names:
                    problems.append((("annotation_schemes", index, "display_logic", "show_when", number, "schema"),
                                     _unknown_scheme(condition.schema_, names)))
        problems += [(("annotation_schemes", index, *path), message)
                     for index, scheme in enumerate(self.annotation_schemes)
                     for path, message in SCHEME_TYPES.of(scheme).references(scheme, self)]
        problems += [(("annotation_schemes", index, "edit"), "an edit bound needs prefill_key, the item field "
                      "the answer starts as") for index, scheme in enumerate(self.annotation_schemes)
                     if getattr(scheme, "edit", None) is not None and not getattr(scheme, "prefill_key", None)]
        problems += [(("aggregation", name), _unknown_scheme(name, names)) for name in self.aggregation
                     if name not in names]
        for name, rule in self.aggregation.items():
            if name in names:
                kind = self.scheme(name).annotation_type
                allowed = SCHEME_TYPES.get(kind).aggregators
                if rule.method not in allowed:
                    problems.append((("aggregation", name, "method"), f"{rule.method!r} does not fit a {kind} "
                                     f"scheme; use one of {', '.join(allowed) or 'none'}"))
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

    def stage_schemes(self, stage: str) -> list[str] | None:
        """The names of the schemes a page of `stage` asks; None (all of them) without a stage."""
        if not stage:
            return None
        return next(entry.schemes for entry in self.stages if entry.name == stage)


def _rewrite_problems(design: Design, index: int, stage: Stage) -> list[tuple[tuple, str]]:
    rewrite = stage.rewrite
    assert rewrite is not None  # asked only of a stage with a rewrite
    where = ("stages", index, "rewrite")
    if stage.gate is None:
        return [(where, "a rewrite replaces what a failed check refused: give the stage a gate")]
    problems: list[tuple[tuple, str]] = []
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
