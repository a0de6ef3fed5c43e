"""The 2-choice task: a premise, what is asked about it, two alternatives; the worker picks one."""

from django.template.loader import render_to_string

from hits.task_types import TASK_TYPES, AnswerError, TaskType, question_context, refuse_foreign_fields

CHOICES = {"1": 1, "2": 2, "a": 1, "b": 2}
KEYS = {"1": "1", "a": "1", "2": "2", "b": "2"}  # the page's keys: key -> the radio value it picks


def _questions(positions):
    return ("question " if len(positions) == 1 else "questions ") + ", ".join(map(str, positions))


class ChoiceValidation(TaskType):
    """Pick the more plausible of two alternatives, per item.

    Item payload: core.items.ChoiceItem (its intended answer is never shown).
    Form fields: "item-<item id>" = 1 or 2, one per item of the HIT.
    """

    name = "choice"
    title = "Which alternative is more plausible?"
    description = "Read a short statement and pick which of two alternatives is its more plausible cause or effect."
    keywords = "commonsense, causal reasoning, choice, COPA"
    template = "choices/choice.html"
    item_noun = "question"

    def parse_answers(self, items, raw):
        answers, missing = {}, []
        for position, item in enumerate(items, 1):
            value = str(raw.get(f"item-{item.id}", "")).strip().lower()
            if not value:
                missing.append(position)
            elif value in CHOICES:
                answers[str(item.id)] = CHOICES[value]
            else:
                raise AnswerError(f"question {position}: the answer {value[:20]!r} is not alternative 1 or 2")
        if missing:
            raise AnswerError(f"{_questions(missing)} {'is' if len(missing) == 1 else 'are'} not answered yet; "
                              f"pick an alternative and submit again")
        refuse_foreign_fields(raw, items, ("item",), "question")
        return answers

    def page_context(self, items):
        return {"items": items, "keys": KEYS}

    def html_question(self, hit, items):
        return render_to_string("choices/choice_mturk.html", question_context(hit, items=items, keys=KEYS))


CHOICE = TASK_TYPES.register("choice", ChoiceValidation())
