"""The task types the annotation app provides."""

from django.template.loader import render_to_string

from annotation import spans
from hits.task_types import AnswerError, TaskType, register

_YES = {"1", "yes", "true"}
_NO = {"0", "no", "false"}


class Subtask1Labeling(TaskType):
    """Subtask 1: is each sentence counterfactual? One yes/no per sentence.

    Item payload: {"text": sentence, "domain": ..., "sentence_id": ...}.
    Form fields: "item-<item id>" = 1/0 (yes/no), one per item of the HIT;
    anything else the page sends (timings, answer changes) is kept as raw.
    """

    name = "subtask1"
    title = "Is this sentence counterfactual?"
    description = "Read 20-30 news sentences and say for each whether it describes something that did not happen."
    keywords = "counterfactual, labeling, sentences, news"
    template = "annotation/subtask1.html"

    def parse_answers(self, items, raw):
        answers = {}
        missing = []
        for item in items:
            value = raw.get(f"item-{item.id}")
            if value is None or str(value).strip() == "":
                missing.append(item.id)
                continue
            value = str(value).strip().lower()
            if value in _YES:
                answers[str(item.id)] = 1
            elif value in _NO:
                answers[str(item.id)] = 0
            else:
                raise AnswerError(f"item {item.id}: answer {value!r} is not yes (1) or no (0)")
        if missing:
            raise AnswerError(f"items not answered: {', '.join(map(str, missing))}")
        known = {f"item-{item.id}" for item in items}
        foreign = sorted(k for k in raw if k.startswith("item-") and k not in known)
        if foreign:
            raise AnswerError(f"answers for items that are not in this HIT: {', '.join(foreign)}")
        return answers

    def html_question(self, hit, items):
        return render_to_string("annotation/subtask1_mturk.html", {"hit": hit, "items": items})


SUBTASK1 = register(Subtask1Labeling())


class Subtask2Spans(TaskType):
    """Subtask 2: for sentences the crowd called counterfactual, one annotator
    first double-checks, then marks the antecedent and the consequent.

    Item payload: {"text": sentence, ...}, as in Subtask 1.
    Form fields per item: "cf-<id>" = 1/0 (still counterfactual?); when 1,
    "ant-<id>" and "con-<id>" = "first:last" word numbers (see annotation.spans)
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
        for item in items:
            verdict = str(raw.get(f"cf-{item.id}", "")).strip().lower()
            if not verdict:
                missing.append(item.id)
                continue
            if verdict in _NO:
                answers[str(item.id)] = {"counterfactual": False}
                continue
            if verdict not in _YES:
                raise AnswerError(f"item {item.id}: cf-{item.id} {verdict!r} is not yes (1) or no (0)")
            answers[str(item.id)] = self._spans(item, raw)
        if missing:
            raise AnswerError(f"items not answered: {', '.join(map(str, missing))}")
        known = {str(item.id) for item in items}
        foreign = sorted(k for k in raw if k.split("-", 1)[0] in ("cf", "ant", "con", "nocon")
                         and k.split("-", 1)[-1] not in known)
        if foreign:
            raise AnswerError(f"answers for items that are not in this HIT: {', '.join(foreign)}")
        return answers

    def _spans(self, item, raw):
        text = item.payload["text"]
        no_consequent = str(raw.get(f"nocon-{item.id}", "")).strip().lower() in _YES
        try:
            antecedent, consequent = spans.read_fields(text, raw.get(f"ant-{item.id}"), raw.get(f"con-{item.id}"),
                                                       no_consequent)
            found = spans.offsets(text, antecedent, consequent)
        except spans.SpanError as error:
            raise AnswerError(f"item {item.id}: {error}") from None
        return {"counterfactual": True, "antecedent": [found.antecedent_start, found.antecedent_end],
                "consequent": [found.consequent_start, found.consequent_end]}

    def page_context(self, items):
        return {"items": span_items(items)}

    def html_question(self, hit, items):
        return render_to_string("annotation/subtask2_mturk.html", {"hit": hit, "items": span_items(items)})


def span_items(items):
    """Items with their words, for the span templates."""
    return [{"item": item, "words": spans.words(item.payload["text"])} for item in items]


SUBTASK2 = register(Subtask2Spans())
