"""What other apps plug into crowd work (see core.registry), besides task types.

- ELIGIBILITY: check(batch, worker) -> the reason for a refusal, or None. Run
  when a worker claims a place and again when they submit (the qualification
  app registers the screening-test check).
- REVOKERS: revoke(worker, reason) -> how many grants it revoked. Run by
  `hits.services.worker_sanction(revoke=True)` (the qualification app
  registers its grants).
- WORKER_ACCURACY: accuracy(worker ids) -> {worker id: latest accuracy}, for
  pages that show how workers did later (the aggregation app registers its
  worker statistics).
- SETTLED: keyed by task type, settled(batch) -> the ids of the batch's items
  whose outcome no further vote can change, for adaptive redundancy
  (hits.services.adaptive; the aggregation app registers the paper's rules for
  Subtask 1). A task type without one cannot be adaptive.
- SPENDING: spent(batch ids) -> what those batches spend or have promised outside the crowd's ledger (a model's
  tokens: designs), counted against every budget
- MODEL_VOTES: votes(batch) -> ({item: a model's answers}, people needed first) or None: the model as one more voter
  where an adaptive batch's people are fewer than its rule needs (designs.model_votes)
- MODEL_ANSWERS: answers(batch, annotator) -> (the model's name, {item: its answers}): every answer a model gave the
  batch ("" names the last model to answer), which the vote rules' methods read beside the people's
  (designs.model_votes); raises CrowdError, saying what to run, when no such model answered
- NOTICES: notice(batch, worker) -> what the worker is told after each submission on this site, or None; a
  Notice says how it is shown, a warning unless it says "info" (designs registers the attention rules' warning and
  the gold items' feedback)
- FILTER_WORDS: words(requirements) -> what else decides who may work, in words for the batch page and the cost
  estimate (designs: a worker stops after the attention rules' block_after wrong)
- BUDGETS: budgets(batch) -> [(what, limit, batch ids)], the budgets above
  the batch's own that its spending counts against (the projects app
  registers a project's). Called inside the transaction that claims a
  payment; a source locks the row that holds its limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from core.registry import Registry

if TYPE_CHECKING:
    from hits.models import Batch, Worker

class Refusal(str):
    """Why a worker may not take a batch's work, said to the worker, with what they can do about it."""

    action: tuple[str, str] | None

    def __new__(cls, message: str, action: tuple[str, str] | None = None) -> Refusal:
        refusal = super().__new__(cls, message)
        refusal.action = action  # (label, url), e.g. ("Take the screening test", "/qualification/x/")
        return refusal


class Notice(str):
    """What a worker is told after a submission, with how it is shown: "warning" (the default: something to mend)
    or "info" (all is well)."""

    level: str

    def __new__(cls, message: str, level: str = "warning") -> Notice:
        notice = super().__new__(cls, message)
        notice.level = level
        return notice


ELIGIBILITY: Registry[Callable[[Batch, Worker], str | None]] = Registry("eligibility check")
NOTICES: Registry[Callable[[Batch, Worker], str | None]] = Registry("notice after a submission")
# Who may work, in words, from a batch's requirements beyond the provider's filters (the attention rules' stop).
FILTER_WORDS: Registry[Callable[[dict[str, Any]], list[str]]] = Registry("words for who may work")
REVOKERS: Registry[Callable[[Worker, str], int]] = Registry("revoker")
WORKER_ACCURACY: Registry[Callable[[Iterable[int]], dict[int, float | None]]] = Registry("worker accuracy source")
# Who may take part in a batch's study at a provider that filters participants (Prolific): each source adds
# filters in the provider's shape, e.g. the participant group of those who passed a screening test.
STUDY_FILTERS: Registry[Callable[[Batch], list[dict]]] = Registry("study filter source")
SETTLED: Registry[Callable[[Batch], set[int]]] = Registry("settled-item rule")
BUDGETS: Registry[Callable[[Batch], list[tuple[str, Decimal, list[int]]]]] = Registry("budget source")
# Money a batch spends outside the crowd's ledger (a language model's tokens), counted against its budgets.
SPENDING: Registry[Callable[[Sequence[int]], Decimal]] = Registry("spending source")
# A model's answers counted as one more voter in an adaptive batch: (each item's answers, the people an item needs
# before the model's vote counts), or None when the batch counts none.
MODEL_VOTES: Registry[Callable[[Batch], tuple[dict[int, dict[str, Any]], int] | None]] = Registry("model votes")
MODEL_ANSWERS: Registry[Callable[[Batch, str], tuple[str, dict[int, dict[str, Any]]]]] = Registry("model answers")


def refusal(batch: Batch, worker: Worker) -> str | None:
    for _, check in ELIGIBILITY.items():
        reason = check(batch, worker)
        if reason:
            return reason
    return None


def notices(batch: Batch, worker: Worker) -> list[str]:
    return [said for _, notice in NOTICES.items() if (said := notice(batch, worker))]


def revoke(worker: Worker, reason: str) -> int:
    return sum(revoker(worker, reason) for _, revoker in REVOKERS.items())


def later_accuracy(worker_ids: Iterable[int]) -> dict[int, float | None]:
    ids = list(worker_ids)
    found: dict[int, float | None] = {}
    for _, source in WORKER_ACCURACY.items():
        found.update(source(ids))
    return found


def study_filters(batch: Batch) -> list[dict]:
    return [rule for _, source in STUDY_FILTERS.items() for rule in source(batch)]


def budgets(batch: Batch) -> list[tuple[str, Decimal, list[int]]]:
    return [scope for _, source in BUDGETS.items() for scope in source(batch)]


def other_spending(batch_ids: Sequence[int]) -> Decimal:
    """What the batches spend or have promised outside the crowd's ledger."""
    return sum((source(batch_ids) for _, source in SPENDING.items()), Decimal(0))
