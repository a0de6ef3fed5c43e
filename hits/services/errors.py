"""The crowd services' refusals: what a request may not do, and why."""

from __future__ import annotations

from typing import Any

from core.errors import InputError


class CrowdError(InputError):
    """A request the crowd services refuse; the message says why and what to do, and `action`
    (label, url) where there is a page to do it on."""

    def __init__(self, message: str, *, action: tuple[str, str] | None = None, **where: Any):
        super().__init__(message, **where)
        self.action = action or getattr(message, "action", None)


class PaymentInFlight(CrowdError):
    """Another request is asking the provider to pay this payment right now."""


class BudgetExceeded(CrowdError):
    pass
