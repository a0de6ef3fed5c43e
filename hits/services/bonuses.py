"""Bonuses: claimed in the ledger within the budgets, then sent once, however often they are asked for."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from hits.models import Assignment, Batch, Payment, Worker
from hits.providers import get_provider
from hits.providers.base import DuplicateRequest, LostAnswer, ProviderError, money
from hits.services.errors import CrowdError, PaymentInFlight
from hits.services.payments import budget_check, charges_record, payment_confirm

# --- bonuses ---------------------------------------------------------------------------------

def worker_bonus(*, worker: Worker, assignment: Assignment, amount: Decimal | str, reason: str) -> Payment:
    """Pay a bonus once: one bonus per assignment and reason, however often, and however many requests at
    once, this is called (`bonus_claim`, then `bonus_send`)."""
    return bonus_send(payment=bonus_claim(worker=worker, assignment=assignment, amount=amount, reason=reason))


def bonus_claim(*, worker: Worker, assignment: Assignment, amount: Decimal | str, reason: str) -> Payment:
    """The bonus, the provider's fee on it and that fee's VAT written to the ledger as an intent, within the
    budgets, in one transaction with the batch row locked; the same bonus claimed again is the row already there."""
    try:
        amount = money(amount)
    except ArithmeticError:
        raise CrowdError(f"a bonus amount is a number like 0.50, not {str(amount)[:20]!r}", field="amount") from None
    if not amount.is_finite() or amount <= 0 or amount >= Decimal("1000000"):
        raise CrowdError("a bonus must be more than 0 and less than 1,000,000", field="amount")
    if assignment.worker_id != worker.pk:
        raise CrowdError(f"assignment {assignment.pk} was not done by worker {worker}")
    if not reason.strip():
        raise CrowdError("say why the bonus is paid; the worker reads it", field="reason")
    batch = assignment.hit.batch
    provider = get_provider(batch.provider)
    fee = provider.bonus_fee(amount)
    charges = fee + provider.vat(fee)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        payment = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.BONUS, reason=reason).first()
        if payment is None:
            budget_check(batch=batch, bonus=amount + charges,
                         what=f"a bonus of {amount} (and {money(charges)} {provider.name} fee"
                              f"{' with VAT' if charges != fee else ''}) on assignment {assignment.pk}")
            payment = Payment.objects.create(assignment=assignment, kind=Payment.Kind.BONUS, reason=reason,
                                             batch=batch, worker=worker, amount=amount)
            charges_record(payment, provider=provider, fee=fee, reason=f"{provider.name} fee on a bonus")
    if payment.amount != amount:
        raise CrowdError(f"a bonus of {money(payment.amount)} for {reason!r} on assignment {assignment.pk} exists "
                         f"({payment.state}); a different amount needs another reason")
    return payment


def bonus_send(*, payment: Payment) -> Payment:
    """Ask the provider to pay a claimed bonus, once.

    The payment is taken for sending in a transaction of its own (row locked on PostgreSQL; SQLite's
    IMMEDIATE transactions queue writers), so of N requests at once one asks the provider and the others are
    told it is in hand. The key is the provider's idempotency token on every attempt, and whenever an earlier
    attempt may have reached the provider (its answer was lost, the process died, or the provider says the
    key was used) the bonus is looked up there first and sent only if it is not there: a lost answer never
    pays twice, whether the retry comes a second or a week later. A lost answer to a call that may have paid
    (Prolific pays a bonus set asynchronously, and lists it only once paid) leaves the payment in doubt: it is not
    sent again until the provider has had PAYMENT_SETTLE_SECONDS to list it.
    """
    now = timezone.now()
    with transaction.atomic():
        payment = Payment.objects.select_for_update().select_related("assignment", "worker", "batch").get(
            pk=payment.pk)
        provider = get_provider(payment.batch.provider)
        if payment.state == Payment.State.CONFIRMED:
            return payment
        if payment.state == Payment.State.FAILED:
            raise CrowdError(f"bonus {payment.pk} failed for good ({payment.error}); claim a new one")
        lease = timedelta(seconds=settings.PAYMENT_LEASE_SECONDS)
        if payment.sending_since is not None and payment.sending_since > now - lease:
            raise PaymentInFlight(f"bonus {payment.pk} of {money(payment.amount)} is being paid by another request "
                                  f"(since {payment.sending_since:%H:%M:%S}); it is paid once, and the ledger says "
                                  f"when it is confirmed")
        looked_for = payment.attempts > 0
        payment.attempts += 1
        payment.sending_since = now
        payment.save(update_fields=["attempts", "sending_since"])
    try:
        if looked_for and _bonus_found(provider, payment):
            return payment
        settle = timedelta(seconds=settings.PAYMENT_SETTLE_SECONDS)
        if payment.in_doubt_since is not None and payment.in_doubt_since > now - settle:
            raise PaymentInFlight(
                f"bonus {payment.pk} of {money(payment.amount)}: {provider.name}'s answer was lost at "
                f"{timezone.localtime(payment.in_doubt_since):%H:%M:%S} and it does not list the payment yet; it is "
                f"looked up again, and sent only if it is still not there, after "
                f"{timezone.localtime(payment.in_doubt_since + settle):%H:%M}")
        try:
            reference = _send(provider, payment)
        except DuplicateRequest as error:
            if _bonus_found(provider, payment):
                return payment
            Payment.objects.filter(pk=payment.pk).update(error=str(error))
            raise ProviderError(f"{error}; {provider.name} says this bonus was requested before but lists no such "
                                f"payment: run `manage.py hits reconcile {payment.batch_id}` before trying "
                                f"again") from error
        except LostAnswer as error:
            if _bonus_found(provider, payment):  # paid: only the answer was lost
                return payment
            doubt = {"in_doubt_since": timezone.now()} if error.maybe_paid else {}
            Payment.objects.filter(pk=payment.pk).update(error=str(error), **doubt)
            raise ProviderError(f"{error}; {provider.name} does not list it as paid, and it is looked up again "
                                f"before it is ever sent again") from error
        except ProviderError as error:
            Payment.objects.filter(pk=payment.pk).update(error=str(error))
            raise
        if reference is not None:
            payment_confirm(payment, reference)
        return payment
    finally:
        Payment.objects.filter(pk=payment.pk).update(sending_since=None)


def _send(provider: Any, payment: Payment) -> str | None:
    """The provider's send_bonus. A lost answer to a call that cannot have moved money (making Prolific's bonus
    set, which pays nothing) is looked up and, when nothing was paid, the call is made once more; None when the
    lookup found the bonus paid."""
    try:
        return provider.send_bonus(payment)
    except LostAnswer as error:
        if error.maybe_paid:
            raise
        if _bonus_found(provider, payment):
            return None
        payment.refresh_from_db(fields=["provider_reference"])
        return provider.send_bonus(payment)


def _bonus_found(provider: Any, payment: Payment) -> bool:
    """Whether the provider paid this bonus already; if so the ledger says so too.

    A provider that keeps no reason with a bonus (Prolific lists amounts only) paid this one when it
    lists more bonuses of this amount on the assignment than the ledger has confirmed there."""
    remote = provider.find_bonuses(payment.assignment)
    for found in remote:
        if found.amount == payment.amount and found.reason == payment.reason:
            payment_confirm(payment, found.reference or payment.provider_reference)
            return True
    unnamed = sum(1 for found in remote if not found.reason and found.amount == payment.amount)
    confirmed = Payment.objects.filter(assignment=payment.assignment, kind=Payment.Kind.BONUS, amount=payment.amount,
                                       state=Payment.State.CONFIRMED).exclude(pk=payment.pk).count()
    if unnamed > confirmed:
        payment_confirm(payment, payment.provider_reference)
        return True
    return False
