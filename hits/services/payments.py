"""Money: what a batch costs (the provider's fees and their VAT apart), the ledger's rewards with their fees and
VAT, and the budgets every payment is checked against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from hits import extensions
from hits.models import Assignment, Batch, Payment
from hits.providers import get_provider
from hits.providers.base import money
from hits.services.errors import BudgetExceeded


@dataclass(frozen=True)
class CostEstimate:
    hits: int
    assignments: int
    rewards: Decimal  # what the workers get
    fees: Decimal  # what the provider charges on top, its VAT included
    total: Decimal
    vat: Decimal = Decimal("0.00")  # of the fees, the VAT on them (by where the provider account is registered)


def cost_estimate(*, provider: str, hits: int, assignments_per_hit: int, reward: Decimal | str,
                  masters: bool = False, places: int | None = None) -> CostEstimate:
    """What `hits` HITs of `assignments_per_hit` places cost at `provider`, its fees and their VAT apart; `places`,
    when given, is what the HITs offer in all (re-packed and retired HITs offer their own number). Fractions of a
    cent are added up exactly and rounded once, as the provider charges them."""
    reward = money(reward)
    found = get_provider(provider)
    fee = found.reward_fee(reward, assignments_per_hit, masters)
    assignments = hits * assignments_per_hit if places is None else places
    total = money(assignments * found.cost_per_assignment(reward, assignments_per_hit, masters))
    rewards = money(assignments * reward)
    return CostEstimate(hits=hits, assignments=assignments, rewards=rewards, fees=total - rewards, total=total,
                        vat=money(assignments * found.vat(fee)))


def batch_cost(*, batch: Batch) -> CostEstimate:
    """What the batch's HITs cost: every place they offer (a re-packed or retired HIT offers its own count)."""
    return cost_estimate(provider=batch.provider, hits=batch.hits.count(),
                         assignments_per_hit=batch.assignments_per_hit, reward=batch.reward,
                         masters=bool(batch.requirements.get("masters")), places=batch.places())


def batch_estimate_cost(*, batch: Batch) -> Decimal:
    return batch_cost(batch=batch).total


def reward_record(assignment: Assignment, *, confirmed: bool) -> Payment:
    """The assignment's reward, the provider's fee on it and the VAT on that fee, in the ledger (once, whoever
    approved it).

    An intent (before the provider is asked to approve) is checked against the budgets with the batch row
    locked; a reward the provider has paid already (`confirmed`: approved by itself) is a fact and recorded."""
    provider = get_provider(assignment.hit.batch.provider)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=assignment.hit.batch_id)
        reward = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.REWARD).first()
        if reward is None:
            amount = money(batch.reward)
            fee = provider.reward_fee(amount, batch.assignments_per_hit, bool(batch.requirements.get("masters")))
            vat = provider.vat(fee)
            if not confirmed:
                budget_check(batch=batch, reward=amount + fee + vat,
                             what=f"approving assignment {assignment.pk} (a reward of {amount} and "
                                  f"{money(fee + vat)} {provider.name} fee{' with VAT' if vat else ''})")
            reward = Payment.objects.create(assignment=assignment, kind=Payment.Kind.REWARD, batch=batch,
                                            worker_id=assignment.worker_id, amount=amount, reason="reward")
            charges_record(reward, provider=provider, fee=fee, reason=f"{provider.name} fee")
        if confirmed and reward.state != Payment.State.CONFIRMED:
            payment_confirm(reward)
    return reward


def charges_record(payment: Payment, *, provider, fee: Decimal, reason: str) -> Payment:
    """The provider's fee on `payment` and the VAT on that fee, each a row of the ledger beside it, in the same
    state; returns the fee's row."""
    fee_row = Payment.objects.create(assignment=payment.assignment, kind=Payment.Kind.FEE, batch=payment.batch,
                                     worker_id=payment.worker_id, amount=fee, reason=reason, fee_of=payment,
                                     state=payment.state, confirmed=payment.confirmed)
    vat = provider.vat(fee)
    if vat:
        Payment.objects.create(assignment=payment.assignment, kind=Payment.Kind.VAT, batch=payment.batch,
                               worker_id=payment.worker_id, amount=vat, reason=f"VAT on the {reason}",
                               fee_of=fee_row, state=payment.state, confirmed=payment.confirmed)
    return fee_row


def charged(payment: Payment):
    """The rows of `payment` and of what the provider charges on it (its fee, the VAT on that fee)."""
    return Payment.objects.filter(Q(pk=payment.pk) | Q(fee_of=payment) | Q(fee_of__fee_of=payment))


def reward_cancel(assignment: Assignment, why: str = "the work was not approved") -> None:
    """The assignment's intended reward, with its fee and VAT, will not be paid."""
    reward = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.REWARD,
                                    state=Payment.State.INTENDED).first()
    if reward is not None:
        charged(reward).filter(state=Payment.State.INTENDED).update(state=Payment.State.FAILED, error=why)


def payment_confirm(payment: Payment, reference: str = "") -> None:
    now = timezone.now()
    Payment.objects.filter(pk=payment.pk).update(state=Payment.State.CONFIRMED, confirmed=now, error="",
                                                 in_doubt_since=None,
                                                 provider_reference=reference or payment.provider_reference)
    charged(payment).exclude(pk=payment.pk).update(state=Payment.State.CONFIRMED, confirmed=now)
    payment.state, payment.confirmed, payment.in_doubt_since = Payment.State.CONFIRMED, now, None


# --- budgets --------------------------------------------------------------------------------

SPENDING_STATES = (Batch.State.PUBLISHING, Batch.State.PUBLISHED, Batch.State.COMPLETED, Batch.State.EXPIRED,
                   Batch.State.CANCELLED)


def committed(*, batch_ids: Sequence[int], rewards: Mapping[int, Decimal] | None = None,
              bonuses: Mapping[int, Decimal] | None = None,
              estimates: Mapping[int, Decimal] | None = None, other: Decimal = Decimal(0)) -> Decimal:
    """What the batches have spent or promised, fees and their VAT included: each published batch's places at their cost
    (or what its rewards came to, when more), every bonus, and what they spend outside the crowd's ledger (a
    language model's tokens: extensions.SPENDING); nothing that failed. `rewards`, `bonuses` and `estimates` add
    what is about to be claimed, per batch, and `other` what is about to be spent outside the ledger."""
    rewards, bonuses, estimates = rewards or {}, bonuses or {}, estimates or {}
    kinds = {name: Q(kind=kind) | Q(fee_of__kind=kind) | Q(fee_of__fee_of__kind=kind)  # with the fee and its VAT
             for name, kind in (("reward", Payment.Kind.REWARD), ("bonus", Payment.Kind.BONUS))}
    ledger = (Payment.objects.filter(batch_id__in=batch_ids).exclude(state=Payment.State.FAILED)
              .values("batch_id").annotate(**{name: Coalesce(Sum("amount", filter=q), Decimal(0))
                                              for name, q in kinds.items()}).order_by())
    found: dict[int, tuple[Decimal, Decimal]] = {row["batch_id"]: (row["reward"], row["bonus"])  # type: ignore[misc]
                                                 for row in ledger}
    total = Decimal(0)
    for batch in Batch.objects.filter(pk__in=batch_ids):
        paid_rewards, paid_bonuses = found.get(batch.pk, (Decimal(0), Decimal(0)))
        estimate = estimates.get(batch.pk)
        if estimate is None:
            estimate = batch_estimate_cost(batch=batch) if batch.state in SPENDING_STATES else Decimal(0)
        total += max(estimate, paid_rewards + rewards.get(batch.pk, Decimal(0)))
        total += paid_bonuses + bonuses.get(batch.pk, Decimal(0))
    return total + extensions.other_spending(batch_ids) + other


def budget_check(*, batch: Batch, what: str, reward: Decimal = Decimal(0), bonus: Decimal = Decimal(0),
                 estimate: Decimal | None = None, other: Decimal = Decimal(0)) -> None:
    """Refuse, naming the amounts, what would take the batch's budget or one above it (the project's) past
    its limit. Call it inside the transaction that claims the money, with the batch row locked, so that two
    claims never both fit under the same budget."""
    scopes = ([(f"batch {batch.pk}", batch.budget, [batch.pk])] if batch.budget is not None else [])
    scopes += extensions.budgets(batch)
    for name, limit, ids in scopes:
        after = committed(batch_ids=ids, rewards={batch.pk: reward}, bonuses={batch.pk: bonus},
                          estimates={batch.pk: estimate} if estimate is not None else None, other=other)
        if after <= limit:
            continue
        before = committed(batch_ids=ids)
        already = (f" ({money(before)} spent or promised already, {money(max(limit - before, Decimal(0)))} left)"
                   if before < after else "")
        raise BudgetExceeded(f"{what} would take {name} to {money(after)}, over its budget of {money(limit)}"
                             f"{already}; raise the budget or pay less")
