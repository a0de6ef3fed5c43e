"""Task types are plug-ins: each names its item payload, its page, and how
submitted answers are validated and parsed. `hits` stores and moves answers
without knowing what they mean; apps register their types at start-up.
"""

_REGISTRY = {}


class AnswerError(ValueError):
    """A submission that does not fit the task; the message names the item or field."""


class TaskType:
    name = ""
    title = ""
    description = ""
    keywords = ""
    template = ""  # the annotator page that shows one HIT

    def parse_answers(self, items, raw):
        """Turn submitted form fields into {item key: answer}; raise AnswerError if they do not fit."""
        raise NotImplementedError

    def page_context(self, items):
        """What the task's template gets besides the assignment and HIT."""
        return {"items": items}

    def html_question(self, hit, items):
        """A self-contained HTML form for the HIT, posting to MTurk's externalSubmit."""
        raise NotImplementedError


def register(task_type):
    _REGISTRY[task_type.name] = task_type
    return task_type


def get_task_type(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(f"unknown task type {name!r}; known: {', '.join(sorted(_REGISTRY)) or 'none'}") from None


def task_type_choices():
    return sorted(_REGISTRY)
