"""The interface every crowd provider implements.

It is shaped by what every crowd platform shares: a unit of published work,
workers who take places in it, submissions to pull back, money to pay. MTurk
maps it to HITs and assignments; a Prolific provider would map a HIT to a
study with `assignments_per_hit` places, the worker URL carrying the
participant id, and a completion code as the submission receipt.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def money(value):
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Submission:
    provider_hit_id: str
    provider_assignment_id: str
    worker_id: str
    raw_answers: dict
    submitted: object  # datetime
    status: str  # submitted | approved | rejected


class ProviderError(RuntimeError):
    """The provider refused or failed an operation; the message says which and why."""


class Provider:
    name = ""
    pulls_submissions = False  # True when submissions arrive only through sync

    def cost_per_assignment(self, reward, assignments_per_hit, masters=False):
        return money(reward)

    def cost_of_bonus(self, amount):
        return money(amount)

    def available_balance(self):
        """Money available to spend, or None when the provider has no account balance."""
        return None

    def prepare(self, batch):
        """Provider-side set-up before the HITs of `batch` are published."""

    def publish_hit(self, hit, items):
        """Publish one HIT; return its provider id. Must be safe to call again for the same HIT."""
        raise NotImplementedError

    def fetch_submissions(self, batch):
        return []

    def approve(self, assignment, feedback=""):
        pass

    def reject(self, assignment, feedback):
        pass

    def send_bonus(self, worker, assignment, amount, reason, token):
        pass

    def block(self, worker, reason):
        pass

    def expire_hit(self, hit):
        pass
