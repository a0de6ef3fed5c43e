"""The task type the annotation app provides: SemEval Subtask 2's span page. (Subtask 1 is
designs/semeval-subtask1.yaml on the generic design page.)"""

from django.template.loader import render_to_string

from annotation.services import spans_record_submission
from core import spans
from hits.task_types import TASK_TYPES, AnswerError, TaskType, question_context, refuse_foreign_fields

_YES = {"1", "yes", "true"}
_NO = {"0", "no", "false"}
REASON_LIMIT = 500  # characters of a flag's reason


def _numbers(positions):
    """"sentence 3" / "sentences 3, 5 and 7": items as the worker sees them numbered, never database ids."""
    if len(positions) == 1:
        return f"sentence {positions[0]}"
    return "sentences " + ", ".join(map(str, positions[:-1])) + f" and {positions[-1]}"


def _check_missing(missing, what):
    if missing:
        raise AnswerError(f"{_numbers(missing)} {'is' if len(missing) == 1 else 'are'} not {what} yet; "
                          f"answer {'it' if len(missing) == 1 else 'them'} and submit again")


class Subtask2Spans(TaskType):
    """Subtask 2: for sentences the crowd called counterfactual, one annotator
    first double-checks, then marks the antecedent and the consequent.

    Item payload: core.items.SentenceItem, as in Subtask 1, with `source_item` set.
    Form fields per item: "cf-<id>" = 1/0 (still counterfactual?); when 1,
    "ant-<id>" and "con-<id>" = "first:last" word numbers (see core.spans)
    and "nocon-<id>" = 1 when the sentence has no consequent.
    Answer per item: {"counterfactual": false} or {"counterfactual": true,
    "antecedent": [start, end], "consequent": [start, end] or [-1, -1]} in
    character offsets of the stored sentence, end inclusive.
    """

    name = "subtask2"
    title = "Mark the antecedent and the consequent"
    description = "Check that each sentence is counterfactual, then underline its condition and its outcome."
    keywords = "counterfactual, spans, antecedent, consequent, news"
    template = "annotation/subtask2.html"

    def parse_answers(self, items, raw):
        answers, missing = {}, []
        for position, item in enumerate(items, 1):
            verdict = str(raw.get(f"cf-{item.id}", "")).strip().lower()
            if not verdict:
                missing.append(position)
                continue
            if verdict in _NO:
                reason = str(raw.get(f"why-{item.id}", "")).strip()[:REASON_LIMIT]
                answers[str(item.id)] = {"counterfactual": False, **({"reason": reason} if reason else {})}
                continue
            if verdict not in _YES:
                raise AnswerError(f"sentence {position}: the check {verdict[:20]!r} is not yes (1) or no (0)")
            answers[str(item.id)] = self._spans(position, item, raw)
        _check_missing(missing, "checked")
        refuse_foreign_fields(raw, items, ("cf", "ant", "con", "nocon", "why"), "sentence")
        return answers

    def _spans(self, position, item, raw):
        text = item.content.text
        no_consequent = str(raw.get(f"nocon-{item.id}", "")).strip().lower() in _YES
        try:
            antecedent, consequent = spans.read_fields(text, raw.get(f"ant-{item.id}"), raw.get(f"con-{item.id}"),
                                                       no_consequent)
            found = spans.offsets(text, antecedent, consequent)
        except spans.SpanError as error:
            raise AnswerError(f"sentence {position}: {error}") from None
        return {"counterfactual": True, "antecedent": [found.antecedent_start, found.antecedent_end],
                "consequent": [found.consequent_start, found.consequent_end]}

    def page_context(self, items):
        return {"items": span_items(items)}

    def on_submitted(self, assignment):
        spans_record_submission(assignment=assignment)

    def html_question(self, hit, items):
        return render_to_string("annotation/subtask2_mturk.html", question_context(hit, items=span_items(items)))


def span_items(items):
    """Items with their words, for the span templates."""
    return [{"item": item, "words": spans.words(item.content.text)} for item in items]


SUBTASK2 = TASK_TYPES.register("subtask2", Subtask2Spans())
