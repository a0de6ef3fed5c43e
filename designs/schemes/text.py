"""text: free text, one box or one per label, held to the design's rules (core.textrules: words, copying the
item's text, banned words, mentioning the highlighted words), which an item may tighten (rules_key)."""

from core import textrules
from core.errors import InputError
from designs.schemes.base import AnswerProblem, SchemeType, scheme_type


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


def live_rules(scheme, record) -> dict:
    """The rules as the page checks them as the worker types (design.js), with the texts they compare with."""
    return {**rules(scheme, record).to_json(), "source": source(scheme, record),
            "source_name": scheme.must_differ_from or "text",
            "entity": str(record.fields.get(scheme.must_mention, "")) if scheme.must_mention else ""}


@scheme_type
class Text(SchemeType):
    name = "text"
    level = None  # free text is not compared; it is kept whole

    def read(self, scheme, fields, record):
        try:
            held = rules(scheme, record)
        except InputError as error:
            raise AnswerProblem(f"the item's {scheme.rules_key}: {error.message}") from None
        if not scheme.labels:
            return self._one(scheme, fields.get(), record, held, "")
        answers = {label.name: self._one(scheme, fields.get(str(number)), record, held, f"{label.name}: ")
                   for number, label in enumerate(scheme.labels, 1)}
        answers = {name: text for name, text in answers.items() if text is not None}
        return answers or None

    def _one(self, scheme, value, record, held, where):
        if not value or not value.strip():
            return None
        value = value.strip()
        entity = str(record.fields.get(scheme.must_mention, "")) if scheme.must_mention else ""
        refused = textrules.check(value, source=source(scheme, record), entity=entity, rules=held,
                                  source_name=scheme.must_differ_from or "text")
        if refused:
            raise AnswerProblem(f"{where}{refused[0].rule}: {refused[0].message}")
        return value
