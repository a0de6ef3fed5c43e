"""What a design batch's known-answer items do for the worker, as Potato's quality control does: its attention
checks' failure handling (after each submission a worker who has answered `warn_after` of them wrong is told the
warning, and one who has answered `block_after` wrong may take no more of the batch's work, told why when they next
claim or submit) and its gold standards' feedback (after each submission, how many of the HIT's were right, and the
answer and explanation of each one got wrong). The settings ride on the batch's requirements
(designs.services.requirements_of), so a batch without them costs no query."""

from __future__ import annotations

from typing import Any

from designs.screening import DESIGN_TESTS_ENTRY
from designs.task_type import record
from hits.extensions import Notice, Refusal
from hits.models import Assignment, Batch, Item, Worker

EXCERPT = 60  # characters of an item's text that name it in the feedback


def rules(batch: Batch) -> dict[str, Any] | None:
    return (batch.requirements or {}).get("attention")


def words(requirements: dict[str, Any]) -> list[str]:
    """Registered in hits.extensions.FILTER_WORDS: the attention rules' stop, said where who may work is."""
    found = requirements.get("attention") or {}
    if not found.get("block_after"):
        return []
    return [f"stopped after {found['block_after']} check items answered wrong"]


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


def gold_feedback(batch: Batch, worker: Worker) -> str | None:
    """Registered in hits.extensions.NOTICES: how the worker did on the known-answer items of the HIT they submitted
    last, and for each one got wrong its answer (and explanation) where the design says to tell them."""
    found = (batch.requirements or {}).get("gold_feedback")
    if not found:
        return None
    last = Assignment.objects.answered(batch).filter(worker=worker).order_by("-submitted").first()
    if last is None:
        return None
    checks = [item for item in last.hit.ordered_items() if isinstance(item.gold_answer, dict)]
    if not checks:
        return None
    wrong = [item for item in checks if not DESIGN_TESTS_ENTRY.right((last.answers or {}).get(str(item.pk)) or {},
                                                                     item.gold_answer)]
    said = [f"Check items of this HIT: {len(checks) - len(wrong)} of {len(checks)} right."]
    for item in wrong:
        shown = record(item)
        text = shown.text if len(shown.text) <= EXCERPT else shown.text[:EXCERPT - 1] + "…"
        told = f"“{text}”: not right"
        if found.get("answer", True):
            told += f"; the answer is {DESIGN_TESTS_ENTRY.shown(None, item.gold_answer)}"
        why = shown.fields.get(found["explanation_key"]) if found.get("explanation_key") else None
        said.append(told + (f" ({why})." if why else "."))
    return Notice(" ".join(said), "warning" if wrong else "info")
