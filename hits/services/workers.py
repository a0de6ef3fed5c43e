"""Workers: what they earned, blocks and sanctions."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Count, Sum

from hits import extensions
from hits.models import Assignment, Item, Payment, Worker
from hits.providers import get_provider
from hits.providers.base import money
from hits.services.errors import CrowdError


def worker_pay(*, worker: Worker) -> dict[str, Any]:
    """What a worker has done and earned: assignments per state, confirmed rewards and bonuses."""
    done = (Assignment.objects.filter(worker=worker).exclude(state=Assignment.State.CLAIMED)
            .values("state").annotate(n=Count("pk")))
    by_state = {row["state"]: row["n"] for row in done}
    paid = dict(Payment.objects.filter(worker=worker, state=Payment.State.CONFIRMED,
                                       kind__in=[Payment.Kind.REWARD, Payment.Kind.BONUS])
                .values_list("kind").annotate(total=Sum("amount")).order_by())
    rewards, bonuses = paid.get(Payment.Kind.REWARD) or Decimal("0"), paid.get(Payment.Kind.BONUS) or Decimal("0")
    return {"states": by_state, "rewards": money(rewards), "bonuses": money(bonuses),
            "total": money(rewards + bonuses), "waiting": by_state.get(Assignment.State.SUBMITTED, 0)}


def worker_block(*, worker: Worker, reason: str) -> Worker:
    if not reason.strip():
        raise CrowdError("say why the worker is blocked; the reason is kept and sent to the provider")
    get_provider(worker.provider).block(worker, reason)
    worker.blocked = True
    worker.blocked_reason = reason
    worker.save(update_fields=["blocked", "blocked_reason"])
    return worker


def items_using(sentence_ids: list[int]) -> int:
    """How many batch items show these sentences (registered in filtering.extensions.SENTENCE_USES)."""
    return Item.objects.filter(payload__sentence_pk__in=sentence_ids).count() if sentence_ids else 0


def worker_sanction(*, worker: Worker, reason: str, block: bool = True, revoke: bool = False) -> Worker:
    """One action for a worker whose quality fell: block them, revoke their qualifications, or both.
    A revocation also keeps them out of this requester's HITs at the provider, for good."""
    if block and not worker.blocked:
        worker_block(worker=worker, reason=reason)
    if revoke and not extensions.revoke(worker, reason):
        raise CrowdError(f"worker {worker} holds no qualification to revoke")
    return worker
