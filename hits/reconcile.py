"""Reconcile a batch with its provider: HITs, assignments and money, the provider's records against ours.

Every difference is reported by kind: missing locally (the provider has it,
we do not), missing at the provider (we have it, the provider does not),
state differs, money differs. `repair` pulls what is missing locally and
brings states and the ledger in line with the provider, and marks what we hold
that the provider does not know; money we recorded as paid that the provider
never paid is never "repaired" by guessing: it stays reported for a person.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from hits.models import Assignment, Batch, Hit, Payment, Withdrawal
from hits.providers import get_provider
from hits.services import SyncReport, payment_confirm, reward_record, submission_store
from hits.services.payments import charges_record
from hits.services.sync import place_follow
from hits.task_types import get_task_type

MISSING_LOCALLY = "missing locally"
MISSING_AT_PROVIDER = "missing at the provider"
STATE_DIFFERS = "state differs"
MONEY_DIFFERS = "money differs"


@dataclass
class ReconcileReport:
    batch: int
    differences: list[dict[str, str]] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    # What the organizer should know that is no difference: work its worker withdrew (kept for the record only).
    notes: list[str] = field(default_factory=list)

    def add(self, kind: str, what: str) -> None:
        self.differences.append({"kind": kind, "what": what})

    @property
    def clean(self) -> bool:
        return not self.differences


def batch_reconcile(*, batch: Batch, repair: bool = False) -> ReconcileReport:
    """Compare the provider's HITs, assignments and bonus payments of `batch` with our rows and ledger."""
    report = ReconcileReport(batch.pk)
    provider = get_provider(batch.provider)
    if provider.pulls_submissions and batch.state != Batch.State.DRAFT:
        _reconcile_hits(batch, provider, report, repair)
    if provider.lists_assignments and batch.state != Batch.State.DRAFT:
        _reconcile_places(batch, provider, report, repair)
    _reconcile_rewards(batch, report, repair)
    _withdrawn(batch, report)
    Batch.objects.filter(pk=batch.pk).update(reconciled=timezone.now(), reconcile_report={
        "differences": report.differences, "repaired": report.repaired, "notes": report.notes})
    return report


def _reconcile_hits(batch: Batch, provider: Any, report: ReconcileReport, repair: bool) -> None:
    local = {hit.request_key.hex: hit for hit in batch.hits.all()}
    remote = {found.key: found for found in provider.list_hits(batch)}
    # Batches with the same settings share a HIT type: the other batches' HITs are theirs, not strangers.
    foreign = [_uuid(key) for key in remote if key not in local]
    elsewhere = {found.hex for found in Hit.objects.exclude(batch=batch).filter(
        request_key__in=[key for key in foreign if key]).values_list("request_key", flat=True)}
    for key, found in remote.items():
        hit = local.get(key)
        if hit is None and key in elsewhere:
            continue
        if hit is None:
            report.add(MISSING_LOCALLY, f"HIT {found.provider_hit_id} of this batch's HIT type is not one of ours "
                                        f"(made from another database?)")
        elif hit.provider_hit_id != found.provider_hit_id:
            report.add(MISSING_LOCALLY, f"HIT {hit.index + 1} was made at the provider as {found.provider_hit_id} "
                                        f"by an interrupted publish, and we do not know it")
            if repair:
                Hit.objects.filter(pk=hit.pk).update(provider_hit_id=found.provider_hit_id, state=Hit.State.PUBLISHED,
                                                     published=timezone.now())
                hit.provider_hit_id = found.provider_hit_id
                report.repaired.append(f"HIT {hit.index + 1} now knows it is {found.provider_hit_id}")
    task_type = get_task_type(batch.task_type)
    for hit in batch.hits.exclude(provider_hit_id="").select_related("batch"):
        found = remote.get(hit.request_key.hex) or provider.hit_state(hit)
        if found is None or found.status == "disposed":
            if not hit.final:
                report.add(MISSING_AT_PROVIDER, f"HIT {hit.index + 1} ({hit.provider_hit_id}) is gone at the "
                                                f"provider but not final here")
                if repair:
                    Hit.objects.filter(pk=hit.pk).update(final=True)
                    report.repaired.append(f"HIT {hit.index + 1} marked final (orphaned)")
            continue
        _reconcile_assignments(batch, hit, provider, task_type, report, repair)
        _reconcile_bonuses(batch, hit, provider, report, repair)


def _uuid(key: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(key)
    except ValueError:
        return None


def _reconcile_assignments(batch: Batch, hit: Hit, provider: Any, task_type: Any, report: ReconcileReport,
                           repair: bool) -> None:
    ours = {a.provider_assignment_id: a for a in hit.assignments.exclude(provider_assignment_id="")}
    seen = set()
    for submission in provider.fetch_submissions(hit):
        seen.add(submission.provider_assignment_id)
        assignment = ours.get(submission.provider_assignment_id)
        if assignment is None:
            report.add(MISSING_LOCALLY, f"assignment {submission.provider_assignment_id} of HIT {hit.index + 1} "
                                        f"({submission.status}) was never pulled")
            if repair:
                submission_store(batch, hit, submission, task_type, SyncReport())
                report.repaired.append(f"assignment {submission.provider_assignment_id} pulled")
        elif assignment.state != submission.status:
            report.add(STATE_DIFFERS, f"assignment {assignment.pk} is {assignment.state} here and "
                                      f"{submission.status} at the provider")
            if repair:
                with transaction.atomic():
                    Assignment.objects.filter(pk=assignment.pk).update(state=submission.status,
                                                                       reviewed=timezone.now())
                    if submission.status == Assignment.State.APPROVED:
                        reward_record(assignment, confirmed=True)
                report.repaired.append(f"assignment {assignment.pk} set to {submission.status}")
    for provider_id, assignment in ours.items():
        if provider_id not in seen and not assignment.flag.startswith("not at the provider"):
            report.add(MISSING_AT_PROVIDER, f"assignment {assignment.pk} ({provider_id}) is not at the provider")
            if repair:
                Assignment.objects.filter(pk=assignment.pk).update(
                    flag="not at the provider: kept here, but the provider does not know it")
                report.repaired.append(f"assignment {assignment.pk} flagged as orphaned")


def _reconcile_bonuses(batch: Batch, hit: Hit, provider: Any, report: ReconcileReport, repair: bool) -> None:
    assignments = list(hit.assignments.exclude(provider_assignment_id="").select_related("worker"))
    ledger = {(payment.assignment_id, payment.reason): payment
              for payment in Payment.objects.filter(assignment__in=assignments, kind=Payment.Kind.BONUS)}
    remote = {}
    for assignment in assignments:
        for found in provider.find_bonuses(assignment):
            remote[assignment.pk, found.reason] = (assignment, found)
    for key, (assignment, found) in remote.items():
        booked = ledger.get(key)
        if booked is None:
            report.add(MONEY_DIFFERS, f"a bonus of {found.amount} ({found.reason!r}) to {found.worker_id} is paid "
                                      f"at the provider and not in the ledger")
            if repair:
                _record_found_bonus(batch, assignment, found.amount, found.reason, provider)
                report.repaired.append(f"bonus {found.amount} to {found.worker_id} written to the ledger")
        elif booked.amount != found.amount:
            report.add(MONEY_DIFFERS, f"bonus {booked.pk}: {booked.amount} in the ledger, {found.amount} paid")
        elif booked.state != Payment.State.CONFIRMED:
            report.add(MONEY_DIFFERS, f"bonus {booked.pk} is {booked.state} in the ledger and paid at the "
                                      f"provider")
            if repair:
                payment_confirm(booked, found.reference)
                report.repaired.append(f"bonus {booked.pk} confirmed")
    for key, payment in ledger.items():
        if key not in remote and payment.state == Payment.State.CONFIRMED:
            report.add(MONEY_DIFFERS, f"bonus {payment.pk} of {payment.amount} is confirmed in the ledger and not "
                                      f"paid at the provider; look into it before paying anything again")
        elif key not in remote and payment.state == Payment.State.INTENDED:
            report.add(MONEY_DIFFERS, f"bonus {payment.pk} of {payment.amount} was asked for and never paid; "
                                      f"`hits bonus` again sends it (it is looked up first)")


def _record_found_bonus(batch: Batch, assignment: Assignment, amount: Decimal, reason: str, provider: Any) -> None:
    with transaction.atomic():
        payment = Payment.objects.create(batch=batch, assignment=assignment, worker=assignment.worker,
                                         kind=Payment.Kind.BONUS, amount=amount, reason=reason,
                                         state=Payment.State.CONFIRMED, confirmed=timezone.now())
        charges_record(payment, provider=provider, fee=provider.bonus_fee(amount),
                       reason=f"{provider.name} fee on a bonus")


def _reconcile_places(batch: Batch, provider: Any, report: ReconcileReport, repair: bool) -> None:
    """A provider whose work arrives on this site's pages (Prolific): its places against our assignments (each
    status, and the count of places taken), the bonuses each submission lists (amounts only) against the
    ledger's, and the VAT it charges on its fees against the settings."""
    ours = {a.provider_assignment_id: a for a in Assignment.objects.filter(hit__batch=batch)
            .exclude(provider_assignment_id="").select_related("worker", "hit__batch")}
    seen = set()
    for remote in provider.remote_assignments(batch):
        seen.add(remote.provider_assignment_id)
        assignment = ours.get(remote.provider_assignment_id)
        if assignment is None:
            if remote.status not in ("claimed", "returned", "timed-out", "screened-out"):
                report.add(MISSING_LOCALLY, f"submission {remote.provider_assignment_id} of {remote.worker_id} is "
                                            f"{remote.status} at the provider with no work stored here (reject it "
                                            f"as NO_DATA if nothing was done)")
            continue
        if not _agrees(assignment, remote):
            report.add(STATE_DIFFERS, f"assignment {assignment.pk} is {_local(assignment)} here and {remote.status} "
                                      f"at the provider")
            if repair:
                if place_follow(assignment, remote):
                    Hit.objects.get(pk=assignment.hit_id).reopen_if_room()
                assignment.refresh_from_db()
                if _agrees(assignment, remote):
                    report.repaired.append(f"assignment {assignment.pk} follows the provider: {remote.status}")
        # The study's list is short (no bonuses): each submission's own record lists what it was paid.
        paid = sorted(found.amount for found in provider.find_bonuses(assignment))
        ledger = sorted(Payment.objects.filter(assignment=assignment, kind=Payment.Kind.BONUS,
                                               state=Payment.State.CONFIRMED).values_list("amount", flat=True))
        if paid != ledger:
            report.add(MONEY_DIFFERS, f"assignment {assignment.pk}: bonuses {paid or 'none'} paid at the provider, "
                                      f"{ledger or 'none'} confirmed in the ledger")
            if repair:
                for amount in paid:
                    if paid.count(amount) > ledger.count(amount):
                        pending = Payment.objects.filter(assignment=assignment, kind=Payment.Kind.BONUS,
                                                         amount=amount, state=Payment.State.INTENDED).first()
                        if pending is not None:
                            payment_confirm(pending)
                            report.repaired.append(f"bonus {pending.pk} confirmed")
                            ledger.append(amount)
        for pending in Payment.objects.filter(assignment=assignment, kind=Payment.Kind.BONUS,
                                              state=Payment.State.INTENDED):
            report.add(MONEY_DIFFERS, f"bonus {pending.pk} of {pending.amount} was asked for and is not confirmed; "
                                      f"`hits bonus` again looks it up at the provider and pays it only if it is "
                                      f"not there")
    for provider_id, assignment in ours.items():
        if provider_id not in seen:
            report.add(MISSING_AT_PROVIDER, f"assignment {assignment.pk} ({provider_id}) is not at the provider")
    taken = provider.places_taken(batch)
    here = Assignment.objects.filter(hit__batch=batch).live().count()
    if taken is not None and taken != here:
        report.add(STATE_DIFFERS, f"places taken: {here} here, {taken} at {provider.name}")
    _reconcile_vat(provider, report)


def _agrees(assignment: Assignment, remote: Any) -> bool:
    """Whether an assignment here says what the provider says of its place."""
    state, status = assignment.state, remote.status
    if status == "claimed":
        return state == Assignment.State.CLAIMED
    if status in ("submitted", "approved"):
        return state == status
    if status == "rejected":
        return state == Assignment.State.REJECTED and assignment.place_freed
    if status == "returned" and state in (Assignment.State.EXPIRED, Assignment.State.WITHDRAWN):
        return True
    return state == Assignment.State.EXPIRED or assignment.place_freed  # timed out, screened out


def _local(assignment: Assignment) -> str:
    return f"{assignment.state} (place given back)" if assignment.place_freed else assignment.state


def _reconcile_vat(provider: Any, report: ReconcileReport) -> None:
    """The VAT Prolific charges on its fees (the workspace balance's breakdown) against the rate the settings
    give, so that estimates, budgets and the ledger count what is charged."""
    charged = getattr(provider, "balance_vat_rate", lambda: None)()
    if charged is not None and abs(charged - provider.vat_rate) > Decimal("0.005"):
        report.add(MONEY_DIFFERS, f"{provider.name} charges VAT of {charged:.0%} on its fees and the settings say "
                                  f"{provider.vat_rate:.0%}: set PROLIFIC_VAT_REGION (uk, eu or none) and "
                                  f"PROLIFIC_VAT_NUMBER to the workspace's registration")


def _withdrawn(batch: Batch, report: ReconcileReport) -> None:
    for withdrawal in Withdrawal.objects.filter(assignment__hit__batch=batch).select_related("assignment__worker"):
        report.notes.append(f"assignment {withdrawal.assignment_id} of {withdrawal.assignment.worker} was withdrawn "
                            f"{timezone.localtime(withdrawal.when):%Y-%m-%d %H:%M} ({withdrawal.reason}): its answers "
                            f"are left out of every count, label and export, and nothing is paid for it")


def _reconcile_rewards(batch: Batch, report: ReconcileReport, repair: bool) -> None:
    """Every approved piece of work has its reward confirmed in the ledger, and nothing else has one."""
    approved = Assignment.objects.filter(hit__batch=batch, state=Assignment.State.APPROVED).select_related("hit__batch")
    paid = set(Payment.objects.filter(batch=batch, kind=Payment.Kind.REWARD, state=Payment.State.CONFIRMED)
               .values_list("assignment_id", flat=True))
    for assignment in approved:
        if assignment.pk not in paid:
            report.add(MONEY_DIFFERS, f"assignment {assignment.pk} is approved and its reward is not confirmed in "
                                      f"the ledger")
            if repair:
                reward_record(assignment, confirmed=True)
                report.repaired.append(f"reward of assignment {assignment.pk} confirmed")
    unapproved = Payment.objects.filter(batch=batch, kind=Payment.Kind.REWARD, state=Payment.State.CONFIRMED).exclude(
        assignment__state=Assignment.State.APPROVED)
    for payment in unapproved:
        report.add(MONEY_DIFFERS, f"reward {payment.pk} is confirmed but assignment {payment.assignment_id} is "
                                  f"not approved")
