"""The task types the annotation app provides."""

from django.template.loader import render_to_string

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
