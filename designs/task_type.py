"""The one task type every design file runs as: its page, its MTurk question and its Prolific flow are the
generic page rendering the design's schemes for the HIT's items (designs/task.html)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.html import json_script
from django.utils.safestring import mark_safe

from core.components import COMPONENTS
from core.items import Payload, RecordItem, SentenceItem
from designs.answers import field_prefix, read_item, visible
from designs.components import WRITING_EVIDENCE
from designs.conditions import CONDITION, shown
from designs.dialogue import drawn
from designs.evidence import canary_word
from designs.items import SUGGESTED, as_lines, highlighted, panes, turns
from designs.model import Design
from designs.models import ConditionCell, SharedEvent, batch_design, batch_designs
from designs.schemes import SCHEME_TYPES, AnswerProblem, Record
from designs.stages import stages_advance, stages_withdraw
from designs.suggestions import for_assignment
from hits.task_types import TASK_TYPES, AnswerError, TaskType, question_context, refuse_foreign_fields

# A rendered HIT body is kept a day (a HIT is worked within its lifetime; a later view renders it again), under
# a key that names the templates it was rendered with, so a deploy that changes them never serves an old body.
HIT_PAGE_SECONDS = 24 * 3600
RENDERING = hashlib.sha256(b"".join(
    path.read_bytes() for path in [*sorted((Path(__file__).parent / "templates" / "designs").rglob("*.html")),
                                   *sorted((Path(__file__).parent / "static" / "designs").glob("*.js")),
                                   *sorted((Path(__file__).parent / "static" / "designs").glob("*.css"))]
)).hexdigest()[:12]


def design_of(batch) -> Design | None:
    """The design a batch was made from, or None for a batch of another task type."""
    return batch_design(batch.pk)[0] if batch.task_type == "design" else None


def writing_evidence(batch) -> bool:
    """Whether the batch's task page records how answers were written (the writing-evidence component)."""
    design = design_of(batch)
    return design is not None and WRITING_EVIDENCE in design.components


def label_rule(design: Design, stage: str):
    """The design's aggregation rule of its label scheme (see label_scheme), or None."""
    scheme = label_scheme(design, stage)
    return None if scheme is None else design.aggregation.get(scheme.name)


def label_scheme(design: Design, stage: str):
    """The first scheme a batch of the design (and stage) asks, when it is one label per item (radio, select,
    binary pairwise), else None."""
    asked = design.stage_schemes(stage)
    first = next((scheme for scheme in design.annotation_schemes if asked is None or scheme.name in asked), None)
    if first is None or not SCHEME_TYPES.of(first).one_label(first):
        return None
    return first


def scheme_labels(scheme) -> list[str]:
    return [] if scheme is None else [label.name for label in getattr(scheme, "labels", None) or []]


def _check_shared(design: Design, items: list, answers: dict[str, dict[str, Any]], noun: str) -> None:
    """Answers naming objects kept for the whole batch (a multi-document event) name ones it keeps: one deleted
    while the page was open, or never made, is refused by item and scheme, so no stored answer points at nothing."""
    for scheme in design.annotation_schemes:
        kind = SCHEME_TYPES.of(scheme)
        if not kind.keeps_shared or not any(scheme.name in found for found in answers.values()):
            continue
        kept = set(SharedEvent.objects.filter(batch_id=items[0].batch_id, scheme=scheme.name)
                   .values_list("key", flat=True))
        for position, item in enumerate(items, 1):
            if scheme.name in answers[str(item.pk)]:
                try:
                    kind.check_shared(scheme, answers[str(item.pk)][scheme.name], kept)
                except AnswerProblem as problem:
                    raise AnswerError(f"{noun} {position}: {scheme.description or scheme.name}: {problem}") from None


def record(item) -> Record:
    return record_of(item.content)


def record_of(payload: Payload) -> Record:
    """A design item's payload as the record its schemes read."""
    if isinstance(payload, SentenceItem):
        # A SemEval sentence keeps the payload the filter, the releases and the span stage read; the design sees
        # it as a record of the released columns' names.
        return Record(id=payload.sentence_id, text=payload.text, fields={"domain": payload.domain} if payload.domain
                      else {})
    assert isinstance(payload, RecordItem), payload.kind
    return Record(id=payload.own_id or payload.record_id, text=payload.text, fields=payload.fields)


class DesignTask(TaskType):
    """Any design file's task: the item's text and shown fields, then each scheme's widget.

    Item payload: core.items.RecordItem. Form fields: "a-<item id>-<scheme number>[-<part>]" (see the scheme
    types). Answer per item: {scheme name: value} of the schemes it showed.
    """

    name = "design"
    title = "Annotate"
    description = "Read each item and answer the questions about it."
    keywords = "annotation"
    template = "designs/task.html"

    def listing(self, batch):
        return self._listing(batch_design(batch.pk)[0])

    def listings(self, batches):
        designs = batch_designs([batch.pk for batch in batches])  # one query for them all
        return {batch.pk: {**self._listing(designs[batch.pk][0]), "noun": designs[batch.pk][0].items.noun}
                for batch in batches if batch.pk in designs}

    def _listing(self, design):
        # The design's own words; the generic sentence only for a design that says nothing of itself.
        return {"title": design.title, "description": design.description or design.instructions[:2000]
                or self.description, "keywords": ", ".join(design.keywords or [
                    scheme.annotation_type for scheme in design.annotation_schemes])[:1000]}

    def label_key(self, batch):
        """The first scheme the batch asks, when it is one label per item (radio, select, binary pairwise)."""
        scheme = label_scheme(*batch_design(batch.pk))
        return None if scheme is None else scheme.name

    def label_rule(self, batch):
        return label_rule(*batch_design(batch.pk))

    def components(self, batch):
        return list(batch_design(batch.pk)[0].components)

    def labels(self, batch):
        return scheme_labels(label_scheme(*batch_design(batch.pk)))

    def parse_answers(self, items, raw, worker=None):
        if not items:
            return {}
        design, stage = batch_design(items[0].batch_id)
        asked = design.stage_schemes(stage)
        # Display logic may test the sender's condition: it is read with the answers (none on MTurk, which runs no
        # conditions, and whose synced answers come without a worker here).
        levels = ConditionCell.levels_of(items[0].batch_id, worker.pk) \
            if design.conditions is not None and worker is not None else None
        facts = {f"{CONDITION}{factor}": level for factor, level in (levels or {}).items()}
        noun = design.items.noun
        answers, missing = {}, []
        for position, item in enumerate(items, 1):
            try:
                found, empty = read_item(design, record(item), raw, item.pk, asked, facts)
            except AnswerProblem as problem:
                raise AnswerError(f"{noun} {position}: {problem}") from None
            if empty:
                missing.append(f"{noun} {position} ({', '.join(empty)})")
            answers[str(item.pk)] = found
        if missing:
            raise AnswerError(f"{'; '.join(missing[:5])}{' …' if len(missing) > 5 else ''}: not answered yet; "
                              f"answer and submit again")
        refuse_foreign_fields(raw, items, ("a",), noun)
        _check_shared(design, items, answers, noun)
        return answers

    def on_submitted(self, assignment):
        """A stage's outputs go on to the stages that read it (designs.stages); the components the design names
        keep what they keep of a submission (the span review's answers)."""
        design, stage = batch_design(assignment.hit.batch_id)
        if stage and len(design.stages) > 1:
            stages_advance(assignment, design, stage)
        for name in design.components:
            hook = COMPONENTS.get(name).submitted if name in COMPONENTS else None
            if hook is not None:
                hook(assignment)

    def on_withdrawn(self, assignment):
        """Work its worker withdrew: what it sent on to later stages stops, and the components take back what
        they kept of it."""
        design, stage = batch_design(assignment.hit.batch_id)
        if stage and len(design.stages) > 1:
            stages_withdraw(assignment)
        for name in design.components:
            hook = COMPONENTS.get(name).withdrawn if name in COMPONENTS else None
            if hook is not None:
                hook(assignment)

    def page_context(self, items):
        if not items:
            return {"rows": [], "design": None}
        design, stage = batch_design(items[0].batch_id)
        return task_context(design, design.stage_schemes(stage), items)

    def hit_page(self, hit):
        # The body of a HIT's page depends only on its items and its batch's design, which never change once
        # the HIT is made: rendered once and kept, every worker of the HIT (and every reload) reads it.
        key = f"hit-page:{RENDERING}:{hit.batch_id}:{hit.batch.created.timestamp()}:{hit.pk}"
        page = cache.get(key)
        if page is None:
            context = self.page_context(hit.ordered_items())
            page = {"task_html": render_to_string("designs/_task.html", context), "item_count": len(context["items"]),
                    "scripts": context["scripts"],
                    "task_title": context["task_title"], "item_noun": context["item_noun"],
                    "conditional": getattr(context["design"], "conditions", None) is not None}
            cache.set(key, page, timeout=HIT_PAGE_SECONDS)
        return page

    def assignment_page(self, assignment):
        page: dict[str, Any] = {}
        kept = self.hit_page(assignment.hit)
        if kept.get("conditional"):  # said by the kept page: no design is read for a page without conditions
            design, _ = batch_design(assignment.hit.batch_id)
            # What a person's page holds depends on their condition (a list experiment's sensitive statement is in
            # it or not at all): the HIT's kept page is cut to their cell's levels before it is served.
            levels = ConditionCell.give(assignment.hit.batch, assignment.worker, design.conditions)
            # The page's script reads them too, for display logic on a condition (design.js).
            page["task_html"] = mark_safe(shown(kept["task_html"], levels)  # our own rendering, cut
                                          + json_script(levels, "design-conditions"))
        # A model's suggestions differ by worker (a held-out pair sees none), so they are never in the HIT's kept
        # page: the worker's page carries them as form fields its widgets start with. While they run, they stand in
        # for the suggestions items carry of their own (a Label Studio task's prediction), even where all are held out.
        model, items, given = for_assignment(assignment)
        if not model:
            return page
        page["suggestions"] = {"model": model, "items": {}}
        if not given:
            return page
        design, stage = batch_design(assignment.hit.batch_id)
        asked = design.stage_schemes(stage)
        suggestions = {}
        for item in items:
            fields: dict[str, str] = {}
            for index, scheme in enumerate(design.annotation_schemes):
                value = given.get(item.pk, {}).get(scheme.name)
                if value is not None and (asked is None or scheme.name in asked):
                    prefix = field_prefix(item.pk, index)
                    fields.update((f"{prefix}-{part}" if part else prefix, text) for part, text in
                                  SCHEME_TYPES.of(scheme).form_fields(scheme, value, record(item)).items())
            if fields:
                suggestions[str(item.pk)] = fields
        page["suggestions"]["items"] = suggestions
        return page

    def per_worker(self, batch):
        return batch_design(batch.pk)[0].served_per_worker()

    def html_question(self, hit, items):
        return render_to_string("designs/task_mturk.html", question_context(hit, **self.page_context(items),
                                                                           standalone=True))


# The styles of dialogues and panes (and the design's view of them, items.dialogues and items.pane_width), kept out
# of the site's stylesheet, which every MTurk question inlines whole under its 64 KB.
VIEWS_STYLE = "designs/views.css"
FOLDS_SCRIPT = "designs/folds.js"  # a conversation tree's folds, likewise only where a tree folds


def task_context(design: Design, asked: list[str] | None, items) -> dict:
    """What the task body needs: per item its record and, per scheme, the widget and its form field."""
    # What a scheme shows is the same on every item; only its field, its compared options and its words differ.
    shown_schemes: list[dict[str, Any]] = []
    asked_schemes = [(index, scheme) for index, scheme in enumerate(design.annotation_schemes)
                     if asked is None or scheme.name in asked]
    page_keys = distinct_keys([SCHEME_TYPES.of(scheme).keys(scheme) for _, scheme in asked_schemes])
    for (index, scheme), keys in zip(asked_schemes, page_keys, strict=True):
        kind = SCHEME_TYPES.of(scheme)
        shown_schemes.append({
            "scheme": scheme, "type": kind, "widget": kind.widget, "index": index, "keys": keys,
            "points": kind.points(scheme), "initially_shown": visible(scheme, {}),
            "logic": scheme.display_logic.model_dump(by_alias=True) if scheme.display_logic else None})
    # One question asked of every item (no display logic) is said once above the items, as a paper's task page
    # would: 25 copies of it say nothing more, and the MTurk question stays under its 64 KB.
    once = (shown_schemes[0] if len(shown_schemes) == 1 and shown_schemes[0]["logic"] is None
            and shown_schemes[0]["type"].asked_once else None)
    if once is not None:
        once["once"] = True
    rows: list[dict[str, Any]] = []
    for item in items:
        found = record(item)
        schemes = []
        for entry in shown_schemes:
            scheme = entry["scheme"]
            compared = _compared(scheme, found)
            field = field_prefix(item.pk, entry["index"])
            # A widget's how-to (the span widget's) is said on the first item only: a HIT of 30 sentences says it
            # once, and the MTurk question stays under its 64 KB.
            schemes.append({"words": [], **entry, "field": field, "compared": compared, "first": not rows,
                            **entry["type"].widget_context(scheme, found, field, entry["keys"])})
        # The text is shown once, before the questions; with a span scheme it is the text those schemes mark; a
        # field a widget draws itself (a conversation tree) is not drawn again.
        words: list[dict[str, Any]] = next((entry["words"] for entry in schemes
                                            if entry["type"].marks_text and entry["words"]), [])
        drawn_by = {entry["type"].draws(entry["scheme"]) for entry in schemes}
        rows.append({"item": item, "record": found, "schemes": schemes, "suggested": _suggested(found, schemes),
                     "shown": _fields(found, design.items.show, design.items),
                     "after": _fields(found, design.items.show_after, design.items), "words": words,
                     "said": None if words else _said(found, design.items.text_key, design.items),
                     "drawn": design.items.text_key in drawn_by,
                     "text_title": design.items.titles.get(design.items.text_key, ""),
                     "marked": highlighted(found, design.items), "prompt": _prompt(found, design)})
    evidence = WRITING_EVIDENCE in design.components
    settings = {entry["index"]: {"keys": entry["keys"], "required": bool(entry["scheme"].required),
                                 "showWhen": entry["logic"], "page": entry["type"].page}
                for entry in shown_schemes}
    # A widget's own scripts (the span widget's designs/spans.js), and the writing evidence's, go only on the pages
    # that need them: MTurk's 64 KB.
    scripts = list(dict.fromkeys(script for entry in shown_schemes
                                 for script in entry["type"].scripts(entry["scheme"])))
    if evidence:
        scripts.append("designs/writing-evidence.js")
    styles = list(dict.fromkeys(entry["type"].style for entry in shown_schemes if entry["type"].style))
    if any(row["said"] or any(turns or sides for _, _, turns, sides in row["shown"] + row["after"]) for row in rows):
        styles.append(VIEWS_STYLE)  # a dialogue's turns or panes side by side: only where the page draws them
    drawn = [row["said"] for row in rows] + [turns for row in rows for _, _, turns, _ in row["shown"] + row["after"]]
    if any(getattr(turns, "folds", False) for turns in drawn):
        scripts.append(FOLDS_SCRIPT)
    return {"rows": rows, "design": design, "scheme_settings": settings, "question": once, "task_title": design.title,
            "scripts": scripts, "styles": styles,
            "item_noun": design.items.noun, "items": items, "evidence": evidence,
            "canary": canary_word([item.pk for item in items]) if evidence else ""}


def _suggested(found, schemes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A model's suggested answers of the item (designs.items.SUGGESTED) as the form fields its widgets start with,
    and whose they are; None when it has none the page can show."""
    given = found.fields.get(SUGGESTED)
    if not isinstance(given, dict) or not isinstance(given.get("answers"), dict):
        return None
    fields: dict[str, str] = {}
    for entry in schemes:
        value = given["answers"].get(entry["scheme"].name)
        if value is not None:
            fields.update((f"{entry['field']}-{part}" if part else entry["field"], text)
                          for part, text in entry["type"].form_fields(entry["scheme"], value, found).items())
    if not fields:
        return None
    return {"fields": json.dumps(fields), "model": str(given.get("model") or "a model"), "score": given.get("score")}


MOVES = {"j", "k"}  # the page's own keys: the next and the previous item
ROWS = ("1234567890", "qwertyuiop", "asdfghl", "zxcvbnm")  # the keyboard's rows, the page's moves left out


def distinct_keys(schemes: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each scheme's keys on one page (key -> choice), so that on an item no key does two things, as Potato
    allots them: keys a scheme sets itself (a label's key_value, pairwise's 1/2/0, best-worst's 1-4 and q-r) are
    taken first, in the schemes' order; each scheme numbered 1, 2, 3, … (sequential_key_binding) then gets the free
    keys of the first row of the keyboard no other numbered scheme has and with room for all its choices (the number
    row, then q-p, a-l, z-m). A key still taken moves to the first free one; a choice left without one is picked by
    pointer or Tab."""
    taken: set[str] = set(MOVES)
    found: list[dict[str, str] | None] = [None] * len(schemes)

    def claim(keys: list[str], choices: list[str]) -> dict[str, str]:
        given: dict[str, str] = {}
        for key, choice in zip(keys, choices, strict=True):
            if key in taken:
                key = next((spare for row in ROWS for spare in row if spare not in taken), "")
                if not key:
                    continue
            given[key] = choice
            taken.add(key)
        return given

    numbered = [index for index, keys in enumerate(schemes)
                if keys and list(keys) == [str(number) for number in range(1, len(keys) + 1)]]
    for index, keys in enumerate(schemes):
        if index not in numbered:
            found[index] = claim(list(keys), list(keys.values()))
    rows = list(ROWS)
    for index in numbered:
        keys = schemes[index]
        row = next((row for row in rows if len([key for key in row if key not in taken]) >= len(keys)), None)
        if row is not None:
            rows.remove(row)
        free = [key for key in row if key not in taken][:len(keys)] if row is not None else list(keys)
        found[index] = claim(free, list(keys.values()))
    return [keys or {} for keys in found]


def _fields(found: Record, names: list[str], items: Any = None) -> list[
        tuple[str, str, list[dict[str, Any]] | None, list[dict[str, str]] | None]]:
    """The named fields the item has, as the page shows them: (name, text, turns). A list of sentences (an ending of
    three) as its parts one after another; a dialogue's turns each with its speaker, coloured by speaker as Potato's
    dialogue display does (designs.dialogue.turns); the design's panes side by side (designs.items.panes); a trace
    or a mapping one entry a line (designs.dialogue.as_lines). A field is called by its title where the design (its
    `items`) gives one."""
    titles, sides = (items.titles, items.panes) if items is not None else ({}, {})
    shown = []
    for name in names:
        if name in found.fields:
            value = found.fields[name]
            flat = isinstance(value, list) and not any(isinstance(entry, dict | list) for entry in value)
            side = panes(value, sides[name]) if name in sides else None
            if side and name in items.pane_width:
                side = [{**pane, "width": items.pane_width[name]} for pane in side]
            said = None if side else _said(found, name, items) if items is not None else turns(value)
            shown.append((titles.get(name, name), " ".join(map(str, value)) if flat else as_lines(value), said, side))
    return shown


def _said(found: Record, key: str, items: Any) -> list[dict[str, Any]] | None:
    """The item's text as a dialogue's turns when its text field holds one (a Potato dialogue display), each with
    its speaker and colour, numbered where the design says; None otherwise (the text is shown as it is)."""
    return drawn(found.fields.get(key), items.dialogues.get(key), numbered=key in items.numbered)


def _prompt(found: Record, design: Design) -> str:
    key = design.items.prompt_key
    return str(found.fields.get(key) or "") if key else ""


def _compared(scheme, found: Record) -> list[str]:
    key = getattr(scheme, "items_key", None)
    value = found.fields.get(key) if key else None
    return [str(entry) for entry in value] if isinstance(value, list) else []


DESIGN = TASK_TYPES.register("design", DesignTask())
