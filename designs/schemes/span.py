"""span: labelled character spans of the item's text. The form field holds them as JSON,
[[start, end, label], ...], end exclusive, which the page's span widget writes; the server checks each."""

from __future__ import annotations

import itertools
from typing import Literal

from pydantic import Field, model_validator

from core import spans
from designs.schemes.base import AnswerProblem, LabelledScheme, SchemeType, one_of, read_json, scheme_type

MAX_SPANS = 50


class Span(LabelledScheme):
    """Labelled character spans of the item's text (the SemEval antecedent/consequent page is one)."""

    annotation_type: Literal["span"]
    one_per_label: bool = Field(False, description="at most one span of each label")
    required_labels: list[str] = Field(default_factory=list, description="labels every answer must mark")
    allow_overlap: bool = False
    unit: Literal["words", "characters"] = Field(
        "words", description="what a mark covers: whole words (a mark ends before a comma), or the characters "
                             "selected, as Potato marks them")

    @model_validator(mode="after")
    def _known_required(self) -> Span:
        names = {label.name for label in self.labels}
        for name in self.required_labels:
            if name not in names:
                raise ValueError(f"required_labels names {name!r}, which is not one of its labels")
        return self


@scheme_type
class SpanType(SchemeType):
    name = "span"
    settings = Span
    aggregators = ("spans", "none")
    potato_keys = ("labels", "sequential_key_binding", "allow_overlap")
    potato_humanizes = True
    page = {"value": "spans", "keyAction": "mark"}
    script = "designs/spans.js"
    level = "nominal"  # per character: which label marks it ("" for none)

    def answer_schema(self, scheme):
        return {"type": "array", "maxItems": MAX_SPANS, "items": {
            "type": "object", "required": ["start", "end", "label", "text"], "additionalProperties": False,
            "properties": {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 1},
                           "label": one_of([label.name for label in scheme.labels]), "text": {"type": "string"}}}}

    def read(self, scheme, fields, record):
        marked = read_json(fields, "spans", "mark them again")
        if marked is None:
            return None
        if not isinstance(marked, list) or len(marked) > MAX_SPANS:
            raise AnswerProblem(f"expected a list of at most {MAX_SPANS} spans")
        labels = [label.name for label in scheme.labels]
        spans = sorted(self._span(entry, record.text, labels) for entry in marked)
        self._check_set(scheme, spans)
        return [{"start": start, "end": end, "label": label, "text": record.text[start:end]}
                for start, end, label in spans]

    def _span(self, entry, text, labels):
        if not (isinstance(entry, list) and len(entry) == 3 and all(isinstance(n, int) and not isinstance(n, bool)
                                                                    for n in entry[:2])):
            raise AnswerProblem(f"{str(entry)[:40]} is not a span [start, end, label]")
        start, end, label = entry
        if not 0 <= start < end <= len(text):
            raise AnswerProblem(f"the span {start}:{end} is outside the text (0:{len(text)})")
        if label not in labels:
            raise AnswerProblem(f"{str(label)[:40]!r} is not one of the span labels ({', '.join(labels)})")
        return start, end, label

    def _check_set(self, scheme, spans):
        found = [label for _, _, label in spans]
        for label in scheme.required_labels:
            if label not in found:
                raise AnswerProblem(f"mark the {label}")
        if scheme.one_per_label:
            repeated = sorted({label for label in found if found.count(label) > 1})
            if repeated:
                raise AnswerProblem(f"mark one {repeated[0]} only (there are {found.count(repeated[0])})")
        if not scheme.allow_overlap:
            for (_, end, label), (next_start, _, other) in itertools.pairwise(spans):
                if next_start < end:
                    raise AnswerProblem(f"the {label} and the {other} overlap; spans may not share characters")

    def from_potato(self, converted, importer):
        converted.setdefault("unit", "characters")  # Potato marks the characters selected, not whole words
        return [converted]

    def potato_answer(self, scheme, value, record):
        return {"spans": [{"schema": scheme.name, "name": span["label"], "title": span["label"], "start": span["start"],
                           "end": span["end"], "id": f"{scheme.name}_{span['label']}_{span['start']}_{span['end']}",
                           "text": span["text"]} for span in value]}

    def units(self, scheme, value, text=""):
        # Agreement is per character of the text: which label marks it ("" for none).
        return dict(enumerate(char_labels(text, value)))

    def keys(self, scheme):
        return scheme.keys()

    def widget_context(self, scheme, record, field, keys):
        """The text as words with their character offsets (end exclusive) and the space before each, shown once
        above the item's schemes for every span scheme to mark: the words of core.spans, so punctuation is a word
        of its own (an antecedent ends before its comma), a CJK character is a word, and offsets count code points
        as the stored text does."""
        return {"words": [{"text": word.text, "start": word.start, "end": word.end + 1, "gap": word.gap}
                          for word in spans.words(record.text)]}


def char_labels(text: str, marked) -> list[str]:
    """Each character's label in a span answer ("" for none)."""
    labels = [""] * len(text)
    for span in marked or []:
        for index in range(max(0, span["start"]), min(len(text), span["end"])):
            labels[index] = span["label"]
    return labels
