"""Small builders shared by the tests."""

import re

from django.test import Client

from core.items import SentenceItem
from hits.services import ItemSpec, batch_create

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
    options.setdefault("name", "test batch")
    options.setdefault("task_type", "subtask1")
    return batch_create(items=items(count), **options)


def answers_for(hit, value="1"):
    return {f"item-{item.id}": value for item in hit.ordered_items()}


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
