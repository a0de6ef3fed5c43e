"""span: labelled character spans of the item's text. The form field holds them as JSON,
[[start, end, label], ...], end exclusive, which the page's span widget writes; the server checks each."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from pydantic import Field, model_validator

from core import spans
from designs.schemes.base import (
    NAME,
    SCHEME_TYPES,
    AnswerProblem,
    LabelledScheme,
    SchemeType,
    Strict,
    an,
    one_of,
    read_json,
    scheme_type,
)

MAX_SPANS = 50
NOTHING = "none"  # the form's value when the annotator answered that there is nothing to mark
EXTRAS = "designs/span-extras.js"  # the span widget's picks, its nothing button and links between spans


class SpanAttribute(Strict):
    """One more pick asked of every span marked (an error's severity; Label Studio's perRegion choices)."""

    name: str = Field(pattern=NAME, description="the key it is stored under in each span")
    description: str = Field("", description="the question, shown beside each span")
    labels: list[str] = Field(min_length=2, description="the picks; every span gets one")
    score_from: float | None = Field(None, description="show a score beside the spans: this, less each span's "
                                                       "pick's weight (never below 0), as Potato's error_span "
                                                       "shows its quality score")
    weights: dict[str, float] = Field(default_factory=dict, description="what each pick takes from the score")

    @model_validator(mode="after")
    def _weights_of_picks(self):
        unknown = sorted(set(self.weights) - set(self.labels))
        if unknown:
            raise ValueError(f"weights names {', '.join(unknown)}, not among the picks ({', '.join(self.labels)})")
        return self


class Span(LabelledScheme):
    """Labelled character spans of the item's text (the SemEval antecedent/consequent page is one)."""

    annotation_type: Literal["span"]
    one_per_label: bool = Field(False, description="at most one span of each label")
    required_labels: list[str] = Field(default_factory=list, description="labels every answer must mark")
    allow_overlap: bool = False
    unit: Literal["words", "characters"] = Field(
        "words", description="what a mark covers: whole words (a mark ends before a comma), or the characters "
                             "selected, as Potato marks them")
    attribute: SpanAttribute | None = Field(None, description="a pick asked of every span (an error's severity)")
    nothing: str | None = Field(None, max_length=60, description="a button answering that there is nothing to "
                                                                 "mark, named so (an extractive answer's "
                                                                 "\"Unanswerable\"): the answer is no spans")

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
    potato_aliases = ("error_span", "extractive_qa")
    labelstudio_tags = ("Labels", "ParagraphLabels", "HyperTextLabels")
    page = {"value": "spans", "keyAction": "mark"}
    script = "designs/spans.js"
    marks_text = True
    level = "nominal"  # per character: which label marks it ("" for none)

    def answer_schema(self, scheme):
        properties = {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 1},
                      "label": one_of([label.name for label in scheme.labels]), "text": {"type": "string"}}
        if scheme.attribute:
            properties[scheme.attribute.name] = one_of(scheme.attribute.labels)
        return {"type": "array", "maxItems": MAX_SPANS, "items": {
            "type": "object", "required": list(properties), "additionalProperties": False, "properties": properties}}

    def read(self, scheme, fields, record):
        if scheme.nothing and fields.get() == NOTHING:
            return []  # answered: nothing to mark
        marked = read_json(fields, "spans", "mark them again")
        if marked is None:
            return None
        if not isinstance(marked, list) or len(marked) > MAX_SPANS:
            raise AnswerProblem(f"expected a list of at most {MAX_SPANS} spans")
        labels = [label.name for label in scheme.labels]
        spans = sorted(self._span(entry, record.text, labels, scheme.attribute) for entry in marked)
        self._check_set(scheme, [span[:3] for span in spans])
        return [{"start": start, "end": end, "label": label, "text": record.text[start:end],
                 **({scheme.attribute.name: picked[0]} if scheme.attribute else {})}
                for start, end, label, *picked in spans]

    def _span(self, entry, text, labels, attribute):
        size = 4 if attribute else 3
        if not (isinstance(entry, list) and len(entry) in (3, size) and all(
                isinstance(n, int) and not isinstance(n, bool) for n in entry[:2])):
            raise AnswerProblem(f"{str(entry)[:40]} is not a span [start, end, label]")
        start, end, label = entry[:3]
        if not 0 <= start < end <= len(text):
            raise AnswerProblem(f"the span {start}:{end} is outside the text (0:{len(text)})")
        if label not in labels:
            raise AnswerProblem(f"{str(label)[:40]!r} is not one of the span labels ({', '.join(labels)})")
        if not attribute:
            return start, end, label
        picked = entry[3] if len(entry) == 4 else ""
        if picked not in attribute.labels:
            raise AnswerProblem(f"pick the {attribute.description or attribute.name} of the {label} "
                                f"\"{text[start:end][:40]}\" ({', '.join(attribute.labels)})")
        return start, end, label, picked

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

    def scripts(self, scheme):
        return [self.script, *([EXTRAS] if scheme.attribute or scheme.nothing else [])]

    def potato_alias(self, scheme, importer):
        if scheme.get("annotation_type") == "error_span":
            return self._errors(scheme, importer)
        # An extractive answer: one span of the passage (or the item's text), the question shown before it.
        question = str(scheme.get("question_field") or "question")
        importer.show_before(question)
        passage = scheme.get("passage_field")
        if passage:
            importer.mark_field(str(passage))
        unanswerable = scheme.get("allow_unanswerable", True)
        return ({"labels": [{"name": "answer", "description": "Answer"}], "one_per_label": True, "unit": "characters",
                 **({"nothing": "Unanswerable"} if unanswerable else {})},
                f"an extractive answer, run as one span labelled answer of {passage or 'the item text'!r}, the "
                f"question ({question!r}) shown before it"
                + (", an Unanswerable button answering no span" if unanswerable else "")
                + "; written to Potato's export as its answer record")

    def potato_alias_answer(self, alias, scheme, value, record, settings=None):
        if alias == "error_span":
            return self._error_record(scheme, value, settings or {})
        # Potato's extractive QA keeps one JSON record under the scheme's name: the answer's text and offsets, or
        # unanswerable.
        found = {"answer_text": "", "start": -1, "end": -1, "unanswerable": True}
        if value:
            found = {"answer_text": value[0]["text"], "start": value[0]["start"], "end": value[0]["end"],
                     "unanswerable": False}
        return {"labels": {scheme.name: json.dumps(found, ensure_ascii=False, separators=(",", ":"))}}

    def potato_alias_fields(self, alias, scheme, saved, record, settings=None):
        found = (saved.get("labels") or {}).get(scheme.name)
        if not found:
            return {}
        given = json.loads(found)
        if alias == "error_span":  # each error a span labelled "type: subtype", its severity the pick asked of it
            spans = [{"start": error["start"], "end": error["end"], "label": error["type"] + (
                f": {error['subtype']}" if error.get("subtype") else ""), scheme.attribute.name: error["severity"]}
                for error in given["errors"]]
        else:  # an extractive answer: its one span, or none (unanswerable)
            spans = [] if given.get("unanswerable") else [{"start": given["start"], "end": given["end"],
                                                           "label": "answer"}]
        return self.form_fields(scheme, spans)

    def _error_record(self, scheme, value, settings):
        # Potato's error_span keeps one JSON record under the scheme's name: each error with its type, subtype and
        # severity, and the quality score (max_score less the severities' weights).
        weights = settings.get("severities") or {"Minor": -1, "Major": -5, "Critical": -10}
        errors = []
        for span in value:
            kind, _, subtype = span["label"].partition(": ")
            errors.append({"start": span["start"], "end": span["end"], "text": span["text"], "type": kind,
                           "subtype": subtype, "severity": span.get("severity", "")})
        penalty = sum(abs(weights.get(error["severity"], 0)) for error in errors)
        score = max(0, settings.get("max_score", 100) - penalty)
        return {"labels": {scheme.name: json.dumps({"errors": errors, "score": score}, ensure_ascii=False,
                                                   separators=(",", ":"))}}

    def _errors(self, scheme, importer):
        # Error spans with a severity each (MQM): every error type (or type: subtype) a label, the severity a pick
        # asked of each span.
        labels = []
        if not isinstance(scheme.get("error_types"), list) or not scheme["error_types"]:
            raise ValueError("needs error_types, a list of the kinds of error to mark (each a name, or {name, "
                             "subtypes})")
        for number, kind in enumerate(scheme["error_types"]):
            name = str(kind.get("name") or "") if isinstance(kind, dict) else str(kind)
            if not name:
                raise ValueError(f"error_types.{number} has no name; give each error type a name")
            subtypes = kind.get("subtypes") if isinstance(kind, dict) else None
            if subtypes and not isinstance(subtypes, list):
                raise ValueError(f"error_types.{number}.subtypes is {subtypes!r}; give a list of names, or none")
            labels += [f"{name}: {sub}" for sub in subtypes] if subtypes else [name]
        severities = [str(level.get("name", "")) if isinstance(level, dict) else str(level)
                      for level in scheme.get("severities") or ["Minor", "Major", "Critical"]]
        if scheme.get("source_field"):
            importer.mark_field(str(scheme["source_field"]))
        weights = {str(level.get("name", "")): abs(float(level.get("weight", 0))) for level in
                   scheme.get("severities") or [{"name": "Minor", "weight": -1}, {"name": "Major", "weight": -5},
                                                {"name": "Critical", "weight": -10}]
                   if isinstance(level, dict) and isinstance(level.get("weight"), int | float)}
        score = scheme.get("show_score", True) and isinstance(scheme.get("max_score", 100), int | float)
        return ({"labels": labels, "unit": "characters",
                 "attribute": {"name": "severity", "description": "severity", "labels": severities,
                               **({"score_from": scheme.get("max_score", 100), "weights": weights} if score else {})}},
                "error spans, run as spans labelled by error type (type: subtype) with a severity picked for each"
                + ("; its quality score shown beside them as Potato shows it" if score else "")
                + "; written to Potato's export as its error record and score")

    def from_potato(self, converted, importer):
        converted.setdefault("unit", "characters")  # Potato marks the characters selected, not whole words
        return [converted]

    def potato_answer(self, scheme, value, record):
        return {"spans": [{"schema": scheme.name, "name": span["label"], "title": span["label"], "start": span["start"],
                           "end": span["end"], "id": f"{scheme.name}_{span['label']}_{span['start']}_{span['end']}",
                           "text": span["text"]} for span in value]}

    def potato_fields(self, scheme, saved, record):
        return self.form_fields(scheme, [{"start": span["start"], "end": span["end"], "label": span["name"]}
                                         for span in saved.get("spans") or []])

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
                          for word in spans.words(record.text)],
                "attribute": json.dumps(scheme.attribute.model_dump()) if scheme.attribute else ""}


    def from_labelstudio(self, control, importer):
        labels = [{"name": name, **({"key_value": child.attrs["hotkey"]} if child.attrs.get("hotkey") else {}),
                   **({"color": child.attrs["background"]} if child.attrs.get("background") else {})}
                  for child, name in importer.children(control, "Label")]
        uses = {child.attrs.get("maxUsage") for child, _ in importer.children(control, "Label")}
        importer.ignore(control, "choice")  # one label a region
        words = importer.object_of(control).attrs.get("granularity") == "word"
        if control.tag != "Labels":
            # Spans inside dialogue turns or HTML: the dialogue one turn a line ("author: text"), the HTML as its text.
            shown, back = (("the dialogue shown one turn a line", "its turns") if control.tag == "ParagraphLabels"
                           else ("the HTML's text", "the nodes of its markup"))
            importer.notes.append(f"<{control.tag} name={control.attrs.get('name', '')!r}>: spans of {shown}; "
                                  f"written back to Label Studio as {control.tag} in {back}")
        return {"labels": labels, "unit": "words" if words else "characters",
                **({"one_per_label": True} if uses == {"1"} else {})}

    def labelstudio_control(self, scheme, to_name):
        labels = "".join(f"<Label value={quoteattr(label.name)}"
                         + (f" hotkey={quoteattr(label.key)}" if label.key else "")
                         + (f" background={quoteattr(label.color)}" if label.color else "") + "/>"
                         for label in scheme.labels)
        picks = ""
        if scheme.attribute:  # a pick asked of each span: a Choices of its own, per region
            options = "".join(f"<Choice value={quoteattr(name)}/>" for name in scheme.attribute.labels)
            picks = (f"<Choices name={quoteattr(scheme.attribute.name)} toName={quoteattr(to_name)} perRegion=\"true\">"
                     f"{options}</Choices>")
        return (f"<Labels name={quoteattr(scheme.name)} toName={quoteattr(to_name)}"
                + (' required="true"' if scheme.required else "") + f">{labels}</Labels>{picks}")

    def form_fields(self, scheme, value, record=None):
        if not value:
            return {"": NOTHING} if scheme.nothing else {}
        return {"": json.dumps([[span["start"], span["end"], span["label"],
                                 *([span[scheme.attribute.name]] if scheme.attribute else [])] for span in value])}

    def labelstudio_names(self, scheme):
        return [scheme.name, *([scheme.attribute.name] if scheme.attribute else [])]  # the per-region pick too

    def from_labelstudio_results(self, scheme, results, regions):
        picks = {result.get("id"): (result["value"].get("choices") or [None])[0] for result in results
                 if result.get("type") == "choices"}
        spans = []
        for result in results:
            value = result["value"]
            if result.get("type") != "labels" or not value.get("labels"):
                continue
            span = {"start": value.get("start"), "end": value.get("end"), "label": value["labels"][0],
                    "text": value.get("text", "")}
            if scheme.attribute:
                span[scheme.attribute.name] = picks.get(result.get("id"))
            spans.append(span)
            regions[result.get("id")] = (scheme.name, span)
        return spans or None

    def labelstudio_results(self, scheme, value, to_name, regions):
        results = []
        for number, span in enumerate(value, 1):
            region = f"{scheme.name}-{number}"
            regions[(scheme.name, span["start"], span["end"], span["label"])] = region
            ends = {"start": span["start"], "end": span["end"], "text": span["text"]}
            results.append({"id": region, "type": "labels", "value": {**ends, "labels": [span["label"]]}})
            if scheme.attribute:
                results.append({"id": region, "type": "choices", "from_name": scheme.attribute.name,
                                "value": {**ends, "choices": [span[scheme.attribute.name]]}})
        return results


def char_labels(text: str, marked) -> list[str]:
    """Each character's label in a span answer ("" for none)."""
    labels = [""] * len(text)
    for span in marked or []:
        for index in range(max(0, span["start"]), min(len(text), span["end"])):
            labels[index] = span["label"]
    return labels


# What the schemes over another span scheme's spans share (span_link's links, event_annotation's events).
def span_at(entry: Any, text: str) -> tuple[int, int, str]:
    """A span such a scheme's answer names ([start, end, label]: a link's end, an event's trigger), in the text."""
    if not (isinstance(entry, list) and len(entry) == 3 and all(isinstance(n, int) and not isinstance(n, bool)
                                                                for n in entry[:2]) and isinstance(entry[2], str)):
        raise AnswerProblem(f"{str(entry)[:40]} is not a span [start, end, label]")
    if not 0 <= entry[0] < entry[1] <= len(text):
        raise AnswerProblem(f"the span {entry[0]}:{entry[1]} is outside the text (0:{len(text)})")
    return entry[0], entry[1], entry[2]


def allowed_label(label: str, allowed: list[str], what: str) -> None:
    """A span's label where only some may be (a link's end, an event's trigger or role); none named, any may."""
    if allowed and label not in allowed:
        raise AnswerProblem(f"{what} is {an(label)}; it must be {' or '.join(map(an, allowed))}")


def most_give(values: list[list], key: Callable[[Any], tuple]) -> list:
    """The entries (links, events) more than half the answers give, the same by `key`, each answer counted once."""
    counts: dict[tuple, list] = {}
    for value in values:
        for found, entry in {key(entry): entry for entry in value}.items():
            counts.setdefault(found, []).append(entry)
    return [given[0] for given in counts.values() if len(given) * 2 > len(values)]


def spans_named(scheme: Any, design: Any) -> tuple[Any, list[tuple[tuple, str]]]:
    """The span scheme a scheme's span_schema names, or the problem naming the design's span schemes instead."""
    marking = [other for other in design.annotation_schemes if SCHEME_TYPES.of(other).marks_text]
    spans = next((other for other in marking if other.name == scheme.span_schema), None)
    if spans is not None:
        return spans, []
    return None, [(("span_schema",), f"names {scheme.span_schema!r}, which is not a span scheme of the design; its "
                                     f"span schemes are {', '.join(other.name for other in marking) or '(none)'}")]


def unknown_labels(spans: Any, path: tuple, labels: list[str]) -> list[tuple[tuple, str]]:
    """The labels (a link's or an event's allowed ones, at `path`) the span scheme does not have, each named."""
    have = sorted(label.name for label in spans.labels)
    return [(path, f"{label!r} is not a label of {spans.name} ({', '.join(have)})") for label in labels
            if label not in have]
