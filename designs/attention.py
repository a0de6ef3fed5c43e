"""Potato's attention-check failure handling on a design batch's known-answer items: after each submission a worker
who has answered `warn_after` of them wrong is told the warning, and one who has answered `block_after` wrong may
take no more of the batch's work (told why when they next claim or submit). The rules ride on the batch's
requirements (designs.services.requirements_of), so a batch without them costs no query."""

from __future__ import annotations

from typing import Any

from designs.screening import DESIGN_TESTS_ENTRY
from hits.extensions import Refusal
from hits.models import Assignment, Batch, Item, Worker


def rules(batch: Batch) -> dict[str, Any] | None:
    return (batch.requirements or {}).get("attention")


def failures(batch: Batch, worker: Worker) -> int:
    """The known-answer items of the batch that the worker's counted answers got wrong."""
    known = dict(Item.objects.filter(batch=batch, gold_answer__isnull=False).values_list("pk", "gold_answer"))
    wrong = 0
    for answers in Assignment.objects.answered(batch).filter(worker=worker).values_list("answers", flat=True):
        for item, answer in (answers or {}).items():
            key = known.get(int(item))
            if isinstance(key, dict) and not DESIGN_TESTS_ENTRY.right(answer or {}, key):
                wrong += 1
    return wrong


def refusal(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.ELIGIBILITY: no more of the batch's work after `block_after` wrong."""
    found = rules(batch)
    if not found or not found.get("block_after"):
        return None
    wrong = failures(batch, worker)
    if wrong < found["block_after"]:
        return None
    return Refusal(f"{found['block_message']} ({wrong} check items of {batch.name} answered wrong; "
                   f"the work ends at {found['block_after']})")


def notice(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.NOTICES: after each submission, the block message once `block_after` are
    wrong, else the warning once `warn_after` are."""
    found = rules(batch)
    if not found:
        return None
    wrong = failures(batch, worker)
    if found.get("block_after") and wrong >= found["block_after"]:
        return f"{found['block_message']} ({wrong} check items answered wrong)"
    if found.get("warn_after") and wrong >= found["warn_after"]:
        return f"{found['warn_message']} ({wrong} check items answered wrong so far)"
    return None
