"""The interface every crowd provider implements.

It is shaped by what every crowd platform shares: a unit of published work,
workers who take places in it, submissions to pull back, money to pay. MTurk
maps it to HITs and assignments; Prolific to a study with places, a
participant's submission and a completion code; the in-house provider to this
site's own pages.

Money is asked for only through `send_bonus` and `approve`, each with the
ledger's payment (hits.models.Payment) in hand, and a provider tells what it
paid through `find_bonuses`, so a payment whose answer was lost is looked up,
never guessed (see hits.services).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from core.errors import CrowdsetError

if TYPE_CHECKING:
    from hits.models import Assignment, Batch, Hit, Item, Payment, Worker

CENT = Decimal("0.01")


def money(value: Decimal | int | float | str) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Submission:
    provider_hit_id: str
    provider_assignment_id: str
    worker_id: str
    raw_answers: dict[str, Any]
    submitted: datetime
    status: str  # submitted | approved | rejected
    # Answers the provider holds but that could not be read (kept raw for a person to look at).
    unreadable: str = ""


@dataclass(frozen=True)
class RemoteHit:
    provider_hit_id: str
    key: str  # the request key we gave it ("" when it is not ours)
    status: str  # open | full | review (expired, or every place submitted) | disposed
    expires: datetime | None
    pending: int  # places taken and not submitted yet


@dataclass(frozen=True)
class RemotePlace:
    """A place taken at a provider whose work arrives on this site's pages (Prolific's submission), as the study's
    list gives it."""

    provider_assignment_id: str
    worker_id: str
    # claimed | submitted | approved | rejected | returned (given back, before or after submitting) |
    # timed-out | screened-out
    status: str
    holds_place: bool  # counted in the study's places taken at the provider
    started: datetime | None = None  # when the place was taken there


@dataclass(frozen=True)
class RemoteBonus:
    provider_assignment_id: str
    worker_id: str
    amount: Decimal
    reason: str
    granted: datetime | None
    reference: str = ""


class ProviderError(CrowdsetError, RuntimeError):
    """The provider refused or failed an operation; the message says which and why, and what to do."""


class LostAnswer(ProviderError):
    """The call was sent and its answer lost (a 5xx, a timeout or a dropped connection): it may have been done.
    A call that is not idempotent is never sent again blind after this: the caller looks the outcome up first.
    `maybe_paid`: the call may have moved money (paying a bonus), so the lookup must wait for the provider to
    list it (see hits.services.bonuses)."""

    def __init__(self, message: str, *, maybe_paid: bool = False):
        super().__init__(message)
        self.maybe_paid = maybe_paid


class ProviderBusy(ProviderError):
    """The provider did not answer within the time a page may wait (a participant's request never waits out a
    retry loop): say so, and let a background task go on."""


class DuplicateRequest(ProviderError):
    """The provider says a request with this idempotency key was made before (the answer to it was lost)."""


class NotReviewable(ProviderError):
    """The provider says the assignment cannot be approved or rejected any more (say, it was approved
    automatically); `status` is what the provider says it is now, when it says."""

    def __init__(self, message: str, status: str | None = None):
        super().__init__(message)
        self.status = status


class Provider:
    """What every crowd provider does. The defaults are those of a provider with no remote side
    (in-house): nothing to prepare, pay or notify elsewhere, every decision recorded locally."""

    name = ""
    pulls_submissions = False  # True when submissions arrive only through sync
    lists_assignments = False  # True when remote_assignments() lists the provider's view of every place
    currency = "USD"

    # --- money ------------------------------------------------------------------------

    def reward_fee(self, reward: Decimal, assignments_per_hit: int, masters: bool = False) -> Decimal:
        """The provider's commission on one assignment's reward."""
        return Decimal("0.00")

    def bonus_fee(self, amount: Decimal) -> Decimal:
        return Decimal("0.00")

    def vat(self, fee: Decimal) -> Decimal:
        """The VAT charged on one of the provider's fees (by where the account is registered; none by default)."""
        return Decimal("0.00")

    def cost_per_assignment(self, reward: Decimal, assignments_per_hit: int, masters: bool = False) -> Decimal:
        fee = self.reward_fee(money(reward), assignments_per_hit, masters)
        return money(reward) + fee + self.vat(fee)

    def cost_of_bonus(self, amount: Decimal) -> Decimal:
        fee = self.bonus_fee(money(amount))
        return money(amount) + fee + self.vat(fee)

    def available_balance(self) -> Decimal | None:
        """Money available to spend, or None when the provider has no account balance."""
        return None

    # --- who may work ------------------------------------------------------------------

    def describe_filters(self, requirements: dict[str, Any]) -> list[str]:
        """Who may take the batch's work, in words for the organizer (batch page, cost estimate). The site's
        own annotators have no approval record elsewhere: the crowd filters apply at MTurk and Prolific."""
        found = ["annotators with an account on this site"]
        ignored = [name for name in ("min_approval_rate", "min_approved_hits", "masters") if requirements.get(name)]
        if ignored:
            found.append(f"{', '.join(name.replace('_', ' ') for name in ignored)}: MTurk and Prolific only, "
                         f"not applied here")
        return found

    # --- publishing --------------------------------------------------------------------

    def check(self, batch: Batch, hits: Sequence[Hit]) -> list[str]:
        """Problems that would stop publishing halfway, found before anything is published."""
        return []

    def prepare(self, batch: Batch) -> None:
        """Provider-side set-up before the HITs of `batch` are published (none by default)."""

    def publish_hit(self, hit: Hit, items: Sequence[Item]) -> str:
        """Publish one HIT; return its provider id. Must be safe to call again for the same HIT."""
        raise NotImplementedError

    def find_hit(self, hit: Hit) -> str | None:
        """The provider id of a HIT an earlier, interrupted publish may have made, or None."""
        return None

    def expire_hit(self, hit: Hit) -> None:
        """Stop new workers from taking the HIT at the provider."""

    def close_batch(self, batch: Batch) -> None:
        """Stop new workers from taking any of the batch's work at the provider (an expired or cancelled batch):
        by default each of its open HITs expires."""
        for hit in batch.hits.filter(state="published").exclude(provider_hit_id=""):
            self.expire_hit(hit)

    # --- results -----------------------------------------------------------------------

    def fetch_submissions(self, hit: Hit) -> Iterable[Submission]:
        """Submissions the provider holds for one HIT (none when they arrive through this site's pages)."""
        return []

    def hit_state(self, hit: Hit) -> RemoteHit | None:
        """How the HIT stands at the provider, or None when there is no remote side."""
        return None

    def dispose_hit(self, hit: Hit) -> None:
        """Tell the provider it may forget a HIT whose work is all reviewed."""

    def list_hits(self, batch: Batch) -> Iterable[RemoteHit]:
        """Every HIT the provider holds for this batch (for reconcile)."""
        return []

    def remote_assignments(self, batch: Batch) -> Iterable[RemotePlace]:
        """Every place taken at the provider, with its status there (providers whose work arrives on this site's
        pages but whose statuses and money live at the provider)."""
        return []

    def places_taken(self, batch: Batch) -> int | None:
        """How many places of the batch the provider counts as taken, or None when it keeps no count."""
        return None

    def assignment_status(self, assignment: Assignment) -> str | None:
        """The assignment's status at the provider (RemotePlace.status's words), or None when there is no remote
        side."""
        return None

    # --- review and money ------------------------------------------------------------------

    def approve(self, assignment: Assignment, feedback: str = "") -> None:
        """Tell the provider the work is approved (and so paid); raise NotReviewable if it cannot be."""

    def reject(self, assignment: Assignment, feedback: str, category: str = "") -> None:
        """Tell the provider the work is rejected, with the feedback the worker sees (and, where the provider
        asks for one, a category)."""

    def send_bonus(self, payment: Payment) -> str:
        """Pay `payment` (a bonus) with its key as the idempotency token; return the provider's reference.
        Raise DuplicateRequest when the provider says the key was used before."""
        return ""

    def find_bonuses(self, assignment: Assignment) -> list[RemoteBonus]:
        """The bonuses the provider paid for an assignment (for the ledger and reconcile)."""
        return []

    def block(self, worker: Worker, reason: str) -> None:
        """Keep the worker from the requester's work at the provider."""

    def revoke(self, worker: Worker, reason: str) -> None:
        """Keep a worker whose qualification was revoked out of this requester's HITs for good."""
