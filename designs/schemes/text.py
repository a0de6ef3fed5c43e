"""text: free text, one box or one per label, held to the design's rules (core.textrules: words, copying the
item's text, banned words, mentioning the highlighted words), which an item may tighten (rules_key)."""

from __future__ import annotations

import json
from typing import Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field

from core import stories, textrules
from core.errors import InputError
from designs.schemes.base import (
    AnswerProblem,
    Label,
    SchemeBase,
    SchemeType,
    Strict,
    edit_distances,
    labels_in_any_form,
    scheme_type,
)


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
    placeholder: str = Field("", description="shown in the empty box (a single box; Potato's and Label Studio's)")
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


def rules(scheme, record) -> textrules.TextRules:
    """The scheme's rules with the item's own laid over them."""
    base = textrules.TextRules(
        min_words=scheme.min_words, max_words=scheme.max_words, max_chars=scheme.max_chars,
        max_overlap=scheme.max_overlap if scheme.must_differ_from else None, differ=bool(scheme.must_differ_from),
        banned=tuple(word.lower() for word in scheme.banned), mention=bool(scheme.must_mention))
    return base.tightened(record.fields.get(scheme.rules_key) if scheme.rules_key else None)


def source(scheme, record) -> str:
    """The text an answer may not copy (must_differ_from: "text" is the item's text, else one of its fields)."""
    name = scheme.must_differ_from
    if not name:
        return ""
    return str(record.fields.get(name, record.text if name == "text" else ""))


def entity(scheme, record) -> str:
    """The words every answer must mention (must_mention), or ""."""
    return str(record.fields.get(scheme.must_mention, "")) if scheme.must_mention else ""


def prefill(scheme, record) -> list[str]:
    """What the boxes start as (prefill_key): a list field one part a box, any other value the first box; [] when
    the scheme or the item has none."""
    if not scheme.prefill_key:
        return []
    value = record.fields.get(scheme.prefill_key, record.text if scheme.prefill_key == "text" else None)
    if value in (None, "", []):
        return []
    return [str(part) for part in value] if isinstance(value, list) else [str(value)]


def live_rules(scheme, record) -> dict:
    """The rules as the page checks them as the worker types (design.js), with the texts they compare with."""
    found = {**rules(scheme, record).to_json(), "source": source(scheme, record),
             "source_name": scheme.must_differ_from or "text",
             "entity": entity(scheme, record)}
    start = prefill(scheme, record)
    if start:
        limits = scheme.edit
        found["edit"] = {"original": start, "labels": [label.name for label in scheme.labels],
                         "max_changed": limits.max_changed if limits else None,
                         "min_kept": limits.min_kept if limits else None,
                         "must_change": limits.must_change if limits else False}
    return found


def edit_refusal(scheme, start: list[str], parts: list[str]) -> str:
    """Why an edited answer (its boxes' texts) moved too little or too far from what it started as, or ""."""
    limits = scheme.edit
    if limits is None:
        return ""
    if limits.must_change and stories.words(" ".join(parts)) == stories.words(" ".join(start)):
        return "edit: is unchanged; edit it"
    size = stories.edit_size(start, parts)
    if limits.max_changed is not None and size.changed_share > limits.max_changed + 1e-9:
        return (f"edit: is rewritten, not edited: {size.describe()}; change at most {limits.max_changed:.0%} of "
                f"the words")
    if limits.min_kept is not None and size.kept_share < limits.min_kept - 1e-9:
        return f"edit: keeps too little: {size.describe()}; keep at least {limits.min_kept:.0%} of the words"
    return ""


# How the export names a TextArea's boxes (Label Studio has none), read back by the import.
BOXES = "One at a time: "


def _boxes(attrs: dict[str, str]) -> list[str]:
    """The boxes' names a TextArea's placeholder gives in this platform's export ("One at a time: A, B, C", as many
    as its maxSubmissions), or none: any other TextArea is one box."""
    placeholder, limit = attrs.get("placeholder", ""), attrs.get("maxSubmissions", "")
    if not placeholder.startswith(BOXES) or not limit.strip().isdecimal():
        return []
    names = [name.strip() for name in placeholder.removeprefix(BOXES).split(", ")]
    return names if len(names) == int(limit) > 1 and all(names) and len(set(names)) == len(names) else []


@scheme_type
class TextType(SchemeType):
    name = "text"
    settings = Text
    aggregators = ("none",)
    potato_keys = ("textarea", "multiline", "single_line", "rows", "labels", "min_words", "max_words", "max_chars",
                   "placeholder")
    potato_aliases = ("text_edit",)
    page = {"value": "texts"}
    level = None  # free text is not compared; it is kept whole
    labelstudio_tags = ("TextArea",)

    def potato_answer(self, scheme, value, record):
        # Potato's one box is its input text_box; several boxes are named by their labels.
        return {"labels": dict(value) if isinstance(value, dict) else {"text_box": value}}

    def potato_fields(self, scheme, saved, record):
        labels = saved.get("labels") or {}
        return self.form_fields(scheme, labels["text_box"] if set(labels) == {"text_box"} else labels)

    def answer_schema(self, scheme):
        box = {"type": "string", "minLength": 1, "maxLength": scheme.max_chars}
        if not scheme.labels:
            return box
        return {"type": "object", "properties": {label.name: box for label in scheme.labels},
                "additionalProperties": False, "minProperties": 1}

    def widget_context(self, scheme, record, field, keys):
        """The boxes (label, field, what each starts as) and the rules the page checks as it is typed."""
        start = prefill(scheme, record)
        boxes = [(label.name, f"{field}-{number}", start[number - 1] if number <= len(start) else "")
                 for number, label in enumerate(scheme.labels, 1)]
        return {"rules_json": json.dumps(live_rules(scheme, record)), "boxes": boxes, "start": " ".join(start)}

    def from_potato(self, converted, importer):
        """Potato's `textarea: {on: true, rows: 4, cols: 40}` as our textarea flag and rows."""
        box = converted.get("textarea")
        if isinstance(box, dict):
            converted["textarea"] = bool(box.get("on", True))
            if isinstance(box.get("rows"), int) and "rows" not in converted:
                converted["rows"] = max(1, min(box["rows"], 30))
        return [converted]

    def read(self, scheme, fields, record):
        try:
            held = rules(scheme, record)
        except InputError as error:
            raise AnswerProblem(f"the item's {scheme.rules_key}: {error.message}") from None
        start = prefill(scheme, record)
        if not scheme.labels:
            found = self._one(scheme, fields.get(), record, held, "")
            if start and found is not None and (problem := edit_refusal(scheme, [" ".join(start)], [found])):
                raise AnswerProblem(problem)
            return found
        answers = {label.name: self._one(scheme, fields.get(str(number)), record, held, f"{label.name}: ")
                   for number, label in enumerate(scheme.labels, 1)}
        if start and any(text is not None for text in answers.values()):
            # An edit keeps every box it was given: emptying one deletes a part instead of editing it.
            emptied = [name for (name, text), part in zip(answers.items(), start, strict=False) if text is None]
            if emptied:
                raise AnswerProblem(f"{emptied[0]}: is empty; edit it, do not delete it")
            problem = edit_refusal(scheme, start[:len(answers)], [text or "" for text in answers.values()])
            if problem:
                raise AnswerProblem(problem)
        answers = {name: text for name, text in answers.items() if text is not None}
        return answers or None

    def _one(self, scheme, value, record, held, where):
        if not value or not value.strip():
            return None
        value = value.strip()
        refused = textrules.check(value, source=source(scheme, record), entity=entity(scheme, record), rules=held,
                                  source_name=scheme.must_differ_from or "text")
        if refused:
            raise AnswerProblem(f"{where}{refused[0].rule}: {refused[0].message}")
        return value

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        # Potato's text_edit keeps one JSON record in a hidden input under the scheme's name: the edited text, the
        # text it started as, and the edit distances in characters and in words (as its page computes them).
        original = (prefill(scheme, record) or [""])[0]
        edited = value if isinstance(value, str) else "\n".join(map(str, value.values()))
        found = {"edited_text": edited, "original_text": original, **edit_distances(original, edited)}
        return {"labels": {scheme.name: json.dumps(found, ensure_ascii=False, separators=(",", ":"))}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        found = (saved.get("labels") or {}).get(scheme.name)
        return self.form_fields(scheme, json.loads(found)["edited_text"]) if found else {}

    def potato_alias(self, scheme, importer):
        # Potato's text_edit: a box that starts as the item's source_field for the annotator to edit. Without one,
        # Potato 2.12.1's box (and the "original" its record keeps) starts empty, whatever the item's text: so here.
        if not scheme.get("source_field"):
            return ({"textarea": True}, "a text to edit, run as a text box that starts empty as in Potato (no "
                                        "source_field; no live diff or reset button)")
        source = str(scheme["source_field"])
        return ({"textarea": True, "prefill_key": "text" if source == importer.text_key else source},
                f"a text to edit, run as a text box that starts as the item's {source} (no live diff or reset "
                f"button)")

    def from_labelstudio(self, control, importer):
        rows = importer.integer(control, "rows", 0, 1, 30)
        boxes = _boxes(control.attrs)
        for attribute in ("maxSubmissions", "editable", "transcription", "showSubmitButton"):
            if not (boxes and attribute == "maxSubmissions"):
                importer.ignore(control, attribute)  # one text an answer, typed in its box
        shown = control.attrs.get("placeholder", "") if not boxes else ""  # several boxes' names are in theirs
        return {**({"textarea": True, "rows": rows} if rows > 1 else {}), **({"labels": boxes} if boxes else {}),
                **({"placeholder": shown} if shown else {})}

    def labelstudio_control(self, scheme, to_name):
        # Several boxes are one TextArea taking a text a box, in the boxes' order (Label Studio has no named boxes:
        # the placeholder names them, and the import reads them back from it).
        boxes = (f' maxSubmissions="{len(scheme.labels)}" placeholder='
                 + quoteattr(BOXES + ", ".join(label.name for label in scheme.labels))) \
            if scheme.labels else f" placeholder={quoteattr(scheme.placeholder)}" if scheme.placeholder else ""
        return (f"<TextArea name={quoteattr(scheme.name)} toName={quoteattr(to_name)} rows=\"{scheme.rows}\"{boxes}"
                + (' required="true"' if scheme.required else "") + "/>")

    def labelstudio_value(self, scheme, value):
        if isinstance(value, dict):
            texts = [str(value.get(label.name) or "") for label in scheme.labels]
            while texts and not texts[-1]:  # empty boxes at the end are no texts (one before a text keeps its place)
                texts.pop()
            return {"text": texts}
        return {"text": [value]}

    def form_fields(self, scheme, value, record=None):
        if isinstance(value, dict):
            return {str(number): value[label.name] for number, label in enumerate(scheme.labels, 1)
                    if label.name in value}
        return {"": value}

    def from_labelstudio_results(self, scheme, results, regions):
        given = results[0]["value"].get("text")
        texts = [given] if isinstance(given, str) else [str(text) for text in given or []]  # a text given bare too
        if not scheme.labels:
            return "\n".join(texts) or None
        # A text a box, in the boxes' order; texts beyond the last box (Label Studio was not asked to stop them)
        # join the last box's, a line each, rather than being lost.
        last = len(scheme.labels) - 1
        texts = [*texts[:last], "\n".join(texts[last:])]
        return {label.name: text for label, text in zip(scheme.labels, texts, strict=False) if text.strip()} or None
