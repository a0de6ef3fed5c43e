"""span: labelled character spans of the item's text. The form field holds them as JSON,
[[start, end, label], ...], end exclusive, which the page's span widget writes; the server checks each."""

import itertools
import json

from designs.schemes.base import AnswerProblem, SchemeType, scheme_type

MAX_SPANS = 50
MAX_FIELD = 20_000


@scheme_type
class Span(SchemeType):
    name = "span"
    level = "nominal"  # per character: which label marks it ("" for none)

    def read(self, scheme, fields, record):
        value = fields.get()
        if not value or value == "[]":
            return None
        if len(value) > MAX_FIELD:
            raise AnswerProblem("the spans field is too long; reload the page and mark the spans again")
        try:
            marked = json.loads(value)
        except ValueError:
            raise AnswerProblem("the spans could not be read; reload the page and mark them again") from None
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

    def units(self, scheme, value):
        # Agreement is per character of the text; the aggregation step expands spans (designs.aggregate).
        return {"": value}

    def keys(self, scheme):
        return scheme.keys()
