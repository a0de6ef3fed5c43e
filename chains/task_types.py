"""The task types of the chains design (its human evaluation runs as the design files
designs/timetravel-ratings.yaml and designs/timetravel-comparisons.yaml; chains/evaluation.py).

- `story-write`: a story with its second sentence marked; the worker writes a counterfactual s2' within the
  word bounds and ticks the three conditions it must meet.
- `story-edit`: the story and a counterfactual; the worker first answers the three conditions about it. If
  any fails, they rewrite the counterfactual (it then goes to another worker); if all hold, they edit the
  ending, which starts as the original, within the item's edit bound (measured here, and live on the page).
"""

from django.template.loader import render_to_string

from chains.services import steps_record
from core.stories import EditBound, edit_size, words
from hits.task_types import TASK_TYPES, AnswerError, TaskType, question_context, refuse_foreign_fields

CONDITIONS = (
    ("related", "It is about the same thing as the second sentence, not a new story (topically related)."),
    ("premise", "It fits the first sentence, so the story can go on from it."),
    ("ending", "At least one sentence of the ending no longer fits after it."),
)
WRITE_RULES = {"min_words": 5, "max_words": 30}


def _counterfactual_refusal(text, payload, rules):
    found = words(text)
    low, high = rules.get("min_words", WRITE_RULES["min_words"]), rules.get("max_words", WRITE_RULES["max_words"])
    if not found:
        return "is empty; write the new second sentence"
    if len(found) < low:
        return f"has {len(found)} word{'s' if len(found) != 1 else ''}; write at least {low}"
    if len(found) > high:
        return f"has {len(found)} words; keep it to {high}, one sentence"
    if found == words(payload.initial):
        return "is the original second sentence; change what happens"
    if payload.counterfactual and found == words(payload.counterfactual):
        return "is the counterfactual you were shown; rewrite it so that it meets every condition"
    return None


class StoryTask(TaskType):
    """The story stages' shared parts: the story shown with the conditions, and the workflow told of each
    submission (chains.services.steps_record), in-house and synced alike."""

    mturk_template = ""

    def page_context(self, items):
        return {"items": story_rows(items), "conditions": CONDITIONS}

    def html_question(self, hit, items):
        return render_to_string(self.mturk_template,
                                question_context(hit, items=story_rows(items), conditions=CONDITIONS))

    def on_submitted(self, assignment):
        steps_record(assignment)


def _refuse(problems):
    if problems:
        raise AnswerError(problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))


class StoryWrite(StoryTask):
    """Form fields: "cf-<item id>" (the counterfactual) and "cond-<item id>-<condition>" (ticked: "on")."""

    name = "story-write"
    title = "Change what happens in a short story"
    description = "Read a five-sentence story and rewrite its second sentence so that the story would go differently."
    keywords = "writing, stories, counterfactual"
    template = "chains/write.html"
    mturk_template = "chains/write_mturk.html"
    item_noun = "story"

    def parse_answers(self, items, raw):
        answers, problems = {}, []
        for position, item in enumerate(items, 1):
            payload = item.content
            text = " ".join(str(raw.get(f"cf-{item.id}", "")).split())
            refusal = _counterfactual_refusal(text, payload, payload.rules)
            if refusal:
                problems.append(f"story {position}: the new sentence {refusal}")
            unticked = [str(n) for n, (key, _) in enumerate(CONDITIONS, 1) if raw.get(f"cond-{item.id}-{key}") != "on"]
            if unticked:
                several = len(unticked) > 1
                problems.append(f"story {position}: tick condition{'s' if several else ''} {', '.join(unticked)} "
                                f"once your sentence meets {'them' if several else 'it'}")
            answers[str(item.id)] = {"counterfactual": text}
        _refuse(problems)
        refuse_foreign_fields(raw, items, ("cf", "cond"), "story")
        return answers


class StoryEdit(StoryTask):
    """Form fields: "check-<item id>-<condition>" ("yes"/"no"); then "rewrite-<item id>" when a check says no,
    or "end-<item id>-1..3" (the edited ending) when all say yes."""

    name = "story-edit"
    title = "Check a changed story and fix its ending"
    description = "Check a new second sentence for a short story, then edit the ending as little as needed to fit it."
    keywords = "writing, editing, stories, counterfactual"
    template = "chains/edit.html"
    mturk_template = "chains/edit_mturk.html"
    item_noun = "story"

    def parse_answers(self, items, raw):
        answers, problems = {}, []
        for position, item in enumerate(items, 1):
            payload = item.content
            checks, unanswered = {}, []
            for n, (key, _) in enumerate(CONDITIONS, 1):
                value = raw.get(f"check-{item.id}-{key}")
                if value not in ("yes", "no"):
                    unanswered.append(str(n))
                checks[key] = value == "yes"
            if unanswered:
                problems.append(f"story {position}: answer check{'s' if len(unanswered) > 1 else ''} "
                                f"{', '.join(unanswered)} first")
                continue
            if not all(checks.values()):
                text = " ".join(str(raw.get(f"rewrite-{item.id}", "")).split())
                refusal = _counterfactual_refusal(text, payload, payload.rules)
                if refusal:
                    problems.append(f"story {position}: the rewritten sentence {refusal}")
                answers[str(item.id)] = {"checks": checks, "passed": False, "rewrite": text}
                continue
            ending = [" ".join(str(raw.get(f"end-{item.id}-{n}", "")).split()) for n in (1, 2, 3)]
            empty = [str(n + 3) for n, sentence in enumerate(ending, 0) if not sentence]
            if empty:
                problems.append(f"story {position}: sentence{'s' if len(empty) > 1 else ''} {', '.join(empty)} "
                                f"of the ending {'are' if len(empty) > 1 else 'is'} empty; edit it, do not delete it")
                continue
            size = edit_size(payload.ending, ending)
            if size.distance == 0:
                problems.append(f"story {position}: the ending is unchanged; if it still fits the new sentence, "
                                f"condition 3 does not hold: answer no there and rewrite the sentence")
                continue
            refusal = EditBound.from_json(payload.bound).refusal(size) if payload.bound else None
            if refusal:
                problems.append(f"story {position}: {refusal}")
                continue
            answers[str(item.id)] = {"checks": checks, "passed": True, "ending": ending,
                                     "edit": {"distance": size.distance, "original_words": size.original_words,
                                              "kept": size.kept}}
        _refuse(problems)
        refuse_foreign_fields(raw, items, ("check", "rewrite", "end"), "story")
        return answers


def story_rows(items):
    rows = []
    for item in items:
        payload = item.content
        rules = {**WRITE_RULES, **payload.rules}
        rows.append({"item": item, "story": payload, "rules": rules,
                     "bound": payload.bound, "ending": list(enumerate(payload.ending, 1))})
    return rows


STORY_WRITE = TASK_TYPES.register("story-write", StoryWrite())
STORY_EDIT = TASK_TYPES.register("story-edit", StoryEdit())
