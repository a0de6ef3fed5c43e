"""text: free text, one box or one per label, held to the design's rules (the facts design's, as options)."""

from core import textrules
from designs.schemes.base import AnswerProblem, SchemeType, scheme_type


@scheme_type
class Text(SchemeType):
    name = "text"
    level = None  # free text is not compared; it is kept whole

    def read(self, scheme, fields, record):
        if not scheme.labels:
            return self._one(scheme, fields.get(), record, "")
        answers = {label.name: self._one(scheme, fields.get(str(number)), record, f"{label.name}: ")
                   for number, label in enumerate(scheme.labels, 1)}
        answers = {name: text for name, text in answers.items() if text is not None}
        return answers or None

    def _one(self, scheme, value, record, where):
        if not value:
            return None
        if len(value) > scheme.max_chars:
            raise AnswerProblem(f"{where}is {len(value):,} characters; write at most {scheme.max_chars:,}")
        count = len(textrules.words(value))
        if count < scheme.min_words:
            raise AnswerProblem(f"{where}has {count} word{'s' if count != 1 else ''}; write at least "
                                f"{scheme.min_words}")
        if scheme.max_words is not None and count > scheme.max_words:
            raise AnswerProblem(f"{where}has {count} words; write at most {scheme.max_words}")
        used = set(textrules.words(value)) & {word.lower() for word in scheme.banned}
        if used:
            raise AnswerProblem(f"{where}uses {', '.join(sorted(used))}; write it without")
        if scheme.must_differ_from:
            source = str(record.fields.get(scheme.must_differ_from, record.text if scheme.must_differ_from == "text"
                                           else ""))
            if textrules.words(value) == textrules.words(source):
                raise AnswerProblem(f"{where}is the same as the {scheme.must_differ_from}; change it")
            share = textrules.overlap(value, source)
            if scheme.max_overlap is not None and share > scheme.max_overlap:
                raise AnswerProblem(f"{where}copies {share:.0%} of its words from the {scheme.must_differ_from} "
                                    f"(at most {scheme.max_overlap:.0%}); use your own words")
        return value
