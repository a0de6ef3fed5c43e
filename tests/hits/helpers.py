"""Small builders shared by the hits tests."""

from hits.services import batch_create

DOMAINS = ("finance", "healthcare", "politics")


def items(count, prefix="s"):
    return [{"key": f"{prefix}{n}", "group": DOMAINS[n % 3], "payload": {"text": f"Sentence {n} <b>bold</b>."}}
            for n in range(count)]


def gold(count):
    return [{"key": f"g{n}", "group": "gold", "payload": {"text": f"Gold sentence {n}."}, "gold_answer": n % 2}
            for n in range(count)]


def make_batch(count=50, **options):
    options.setdefault("name", "test batch")
    options.setdefault("task_type", "subtask1")
    return batch_create(items=items(count), **options)


def answers_for(hit, value="1"):
    return {f"item-{item.id}": value for item in hit.ordered_items()}
