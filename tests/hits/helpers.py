"""Small builders shared by the tests."""

import json
import re

from django.test import Client

from core import spans
from core.items import SentenceItem
from designs.semeval import labeling_batch_create
from hits.services import BatchSpec, ItemSpec, batch_create

DOMAINS = ("finance", "healthcare", "politics")


def spec(key, text, group="", gold_answer=None, **fields):
    """An item of one sentence, as the apps make them (its key doubles as the sentence id)."""
    return ItemSpec(key=key, group=group, gold_answer=gold_answer,
                    payload=SentenceItem(text=text, sentence_id=key, domain=group if group in DOMAINS else "",
                                         **fields))


def items(count, prefix="s"):
    return [spec(f"{prefix}{n}", f"Sentence {n} <b>bold</b>.", group=DOMAINS[n % 3]) for n in range(count)]


def gold(count):
    return [spec(f"g{n}", f"Gold sentence {n}.", group="gold", gold_answer=n % 2) for n in range(count)]


def make_batch(count=50, **options):
    """A batch of `count` sentences: SemEval Subtask 1 (designs/semeval-subtask1.yaml) unless a task type is
    given."""
    options.setdefault("name", "test batch")
    if "task_type" in options:
        return batch_create(spec=BatchSpec(**options), items=items(count))
    return labeling_batch_create(items=items(count), **options)


def vote(item, value="1"):
    """The design page's form field of a sentence's yes/no (its one scheme, number 0)."""
    return {f"a-{getattr(item, 'id', item)}-0": value}


def answers_for(hit, value="1"):
    return {key: answer for item in hit.ordered_items() for key, answer in vote(item, value).items()}


def voted(answers):
    """The yes/no votes (1 or 0) of stored answers of the yes/no design, in item order."""
    return [int(answer["counterfactual"]) for answer in answers.values()]


def span_fields(item, cf="1", ant="", con="", why=""):
    """One sentence's answer as designs/semeval-subtask2.yaml's page sends it, given as the reviewer's word
    numbers ("first:last"): the double check (scheme 0), the spans in characters (scheme 1, end exclusive),
    the reason for a "no" (scheme 2)."""
    fields = {f"a-{item.pk}-0": "yes" if cf == "1" else "no"}
    if cf == "1" and ant:
        antecedent = tuple(map(int, ant.split(":")))
        consequent = tuple(map(int, con.split(":"))) if con else None
        found = spans.offsets(item.content.text, antecedent, consequent)
        marked = [[found.antecedent_start, found.antecedent_end + 1, "antecedent"]]
        if consequent:
            marked.append([found.consequent_start, found.consequent_end + 1, "consequent"])
        fields[f"a-{item.pk}-1"] = json.dumps(marked)
    if why:
        fields[f"a-{item.pk}-2"] = why
    return fields


def votes(answers):
    """Stored answers of the yes/no design, from {item id: 1 or 0}."""
    return {str(item): {"counterfactual": str(value)} for item, value in answers.items()}


def take_screening(participant, test, answers):
    """An emulated Prolific participant takes the screening study of `test` on this site, right where `answers`
    (one bool per item) says, and goes back to Prolific with the code: the result page."""
    _, url = participant.start(test.provider_state["prolific"]["study_id"])
    client = Client()
    page = client.get(url.split("http://testserver", 1)[1], follow=True)
    attempt = re.search(r"attempts/(\d+)/submit/", page.content.decode()).group(1)
    fields = {f"item-{item.pk}": str(item.answer if right else 1 - item.answer)
              for item, right in zip(test.items.all(), answers, strict=True)}
    result = client.post(f"/qualification/{test.name}/attempts/{attempt}/submit/", fields, follow=True)
    link = re.search(r'href="([^"]+)" id="complete"', result.content.decode()).group(1).replace("&amp;", "&")
    participant.complete(link)
    return result
