"""The free-text task: a paragraph with a highlighted entity, an instruction (facts or counter-facts), one
worked example and N answer lines. Every line written must pass the item's quality rules; the page checks
them as the worker types (facts.js) and the server checks them again here."""

import json

from django.template.loader import render_to_string

from core.textrules import TextRules, check
from facts.evidence import canary_word
from hits.task_types import TASK_TYPES, AnswerError, TaskType, question_context, refuse_foreign_fields

INSTRUCTIONS = {
    "facts": ("Write several facts about the highlighted words according to the paragraph. You may add common "
              "knowledge (e.g. Paris is in France), but mainly use what the paragraph says. Do not copy and paste."),
    "counterfacts": ("Write several statements that contradict the paragraph. Make them about the highlighted "
                     "words and use mainly what the paragraph says. Avoid words like not or never."),
}
EXAMPLE = {
    "text": "The Eiffel Tower, completed in 1889, was the tallest structure in Paris for decades.",
    "entity": "Eiffel Tower",
    "facts": "The Eiffel Tower was finished in the nineteenth century.",
    "counterfacts": "The Eiffel Tower opened to visitors in 1950.",
}


class FactWriting(TaskType):
    """Write facts or counter-facts about a highlighted entity, a few lines per text.

    Item payload: core.items.FactItem (its rules: core.textrules.TextRules as JSON).
    Form fields: "fact-<item id>-<line>" for lines 1..slots; empty lines are left out, every text needs one
    statement, and each written line must pass the rules. The answer is the list of statements.
    """

    name = "facts"
    title = "Write about the highlighted words"
    description = "Read a short news paragraph and write a few one-sentence statements about the highlighted words."
    keywords = "writing, facts, statements, entailment"
    template = "facts/facts.html"
    item_noun = "paragraph"

    def parse_answers(self, items, raw):
        answers, missing, problems = {}, [], []
        for position, item in enumerate(items, 1):
            payload = item.content
            rules = TextRules.from_json(payload.rules)
            written = []
            for line in range(1, payload.slots + 1):
                value = str(raw.get(f"fact-{item.id}-{line}", "")).strip()
                if not value:
                    continue
                refusals = check(value, source=payload.text, entity=payload.entity, rules=rules)
                problems += [f"text {position}, line {line}: {refusal.rule}: {refusal.message}"
                             for refusal in refusals]
                written.append(value)
            if not written:
                missing.append(position)
            answers[str(item.id)] = written
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise AnswerError(problems[0] + more)
        if missing:
            raise AnswerError(f"text{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} "
                              f"{'has' if len(missing) == 1 else 'have'} no statement yet; write at least one")
        refuse_foreign_fields(raw, items, ("fact",), "paragraph")
        return answers

    def page_context(self, items):
        return {"items": fact_items(items), "example": EXAMPLE, "canary": canary_word([item.pk for item in items])}

    def html_question(self, hit, items):
        return render_to_string("facts/facts_mturk.html", question_context(
            hit, items=fact_items(items), example=EXAMPLE, canary=canary_word([item.pk for item in items])))


def fact_items(items):
    """Items with the paragraph cut around the entity, their instruction, rules and line numbers."""
    rows = []
    for item in items:
        payload = item.content
        rules = {**TextRules.from_json(payload.rules).to_json(), "source": payload.text, "entity": payload.entity}
        rows.append({"item": item, "before": payload.text[:payload.entity_start], "entity": payload.entity,
                     "after": payload.text[payload.entity_end:], "instruction": INSTRUCTIONS[payload.instruction],
                     "variant": payload.instruction, "example": EXAMPLE[payload.instruction],
                     "rules": rules, "rules_json": json.dumps(rules),
                     "lines": range(1, payload.slots + 1)})
    return rows


FACTS = TASK_TYPES.register("facts", FactWriting())
