"""Workflows of crowd work, by concern: making batches (`batches`), publishing and closing them
(`publishing`), claims and submissions on this site (`claims`), what providers hold (`sync`), money and reviews
(`payments`), bonuses (`bonuses`) and workers (`workers`). The names callers use are gathered here."""

from hits.providers.base import ProviderError
from hits.services.batches import (
    BatchSpec,
    ItemSpec,
    batch_create,
    batch_extend,
    check_requirements,
    describe_batch,
    hit_count,
    interleave,
    pack,
    worker_filters,
)
from hits.services.bonuses import bonus_claim, bonus_send, worker_bonus
from hits.services.claims import (
    DRAFT_LIMIT,
    MAX_EXTENSIONS,
    assignment_claim,
    assignment_draft_save,
    assignment_expire_if_overdue,
    assignment_extend,
    assignment_return,
    assignment_submit,
    assignments_expire_overdue,
    worker_for_user,
)
from hits.services.errors import BudgetExceeded, CrowdError, PaymentInFlight
from hits.services.payments import (
    CostEstimate,
    batch_cost,
    batch_estimate_cost,
    budget_check,
    committed,
    cost_estimate,
    payment_confirm,
    reward_cancel,
    reward_record,
)
from hits.services.publishing import batch_archive, batch_cancel, batch_expire, batch_publish
from hits.services.reviews import assignment_approve, assignment_reject
from hits.services.sync import SyncReport, batch_sync, submission_store
from hits.services.withdrawals import assignment_withdraw
from hits.services.workers import items_using, worker_block, worker_pay, worker_sanction

__all__ = [
    "DRAFT_LIMIT",
    "MAX_EXTENSIONS",
    "BatchSpec",
    "BudgetExceeded",
    "CostEstimate",
    "CrowdError",
    "ItemSpec",
    "PaymentInFlight",
    "ProviderError",
    "SyncReport",
    "assignment_approve",
    "assignment_claim",
    "assignment_draft_save",
    "assignment_expire_if_overdue",
    "assignment_extend",
    "assignment_reject",
    "assignment_return",
    "assignment_submit",
    "assignment_withdraw",
    "assignments_expire_overdue",
    "batch_archive",
    "batch_cancel",
    "batch_cost",
    "batch_create",
    "batch_estimate_cost",
    "batch_expire",
    "batch_extend",
    "batch_publish",
    "batch_sync",
    "bonus_claim",
    "bonus_send",
    "budget_check",
    "check_requirements",
    "committed",
    "cost_estimate",
    "describe_batch",
    "hit_count",
    "interleave",
    "items_using",
    "pack",
    "payment_confirm",
    "reward_cancel",
    "reward_record",
    "submission_store",
    "worker_block",
    "worker_bonus",
    "worker_filters",
    "worker_for_user",
    "worker_pay",
    "worker_sanction",
]
