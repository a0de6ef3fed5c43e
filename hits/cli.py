"""Command-line pieces every batch-making command shares: the worker filters as options."""

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import CommandError


def add_filter_arguments(parser: Any) -> None:
    parser.add_argument("--min-approval-rate", type=int, help="percent of a worker's past work approved "
                                                              "(MTurk, Prolific); default: the site's setting")
    parser.add_argument("--min-approved-hits", type=int, help="MTurk's approved HITs, Prolific's approved "
                                                              "submissions (B-COPA asked for 10,000)")
    parser.add_argument("--masters", action="store_true", help="MTurk Masters only (MTurk charges 5%% more)")


def filter_requirements(options: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {name: options[name] for name in ("min_approval_rate", "min_approved_hits")
                             if options.get(name) is not None}
    if options.get("masters"):
        found["masters"] = True
    return found


def parse_reward(value: str) -> Decimal:
    """--reward as money, or a CommandError that says what an amount looks like."""
    try:
        return Decimal(value)
    except InvalidOperation:
        raise CommandError(f"--reward {value!r} is not an amount, e.g. 0.10") from None


def hits_text(batch: Any) -> str:
    """"1 HIT" / "20 HITs" of a batch, for a command's output."""
    count = batch.hits.count()
    return f"{count} HIT{'s' if count != 1 else ''}"
