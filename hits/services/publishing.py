"""Publishing a batch at its provider, and closing it (expired, cancelled, archived)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from hits import selectors
from hits.models import Assignment, Batch, Hit
from hits.providers import get_provider
from hits.providers.base import ProviderError, money
from hits.services.errors import BudgetExceeded, CrowdError
from hits.services.payments import batch_estimate_cost, budget_check


def batch_publish(*, batch: Batch) -> Batch:
    """Publish every HIT not published yet. Safe to re-run after a crash, a kill or a provider failure:
    what can be checked is checked before anything is published (budget, balance, each question's
    size), each HIT records its provider id as soon as it has one, and a HIT whose create call may
    have gone through is looked for at the provider before it is made again."""
    if batch.state in (Batch.State.COMPLETED, Batch.State.EXPIRED, Batch.State.CANCELLED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; create a new batch instead")
    estimate = batch_estimate_cost(batch=batch)
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=batch.pk).first()
        budget_check(batch=batch, estimate=estimate, what=f"publishing batch {batch.pk} for {estimate} (with "
                                                           f"provider fees)")
    provider = get_provider(batch.provider)
    unpublished = list(batch.hits.filter(provider_hit_id="").select_related("batch"))
    problems = provider.check(batch, unpublished)
    if problems:
        raise CrowdError(f"batch {batch.pk} cannot be published as it is: " + "; ".join(problems))
    balance = provider.available_balance()
    needed = estimate * len(unpublished) / max(1, batch.hits.count())
    if balance is not None and balance < needed:
        raise BudgetExceeded(f"the {provider.name} account holds {balance}, and publishing batch {batch.pk} needs "
                             f"{money(needed)}; add funds first")
    Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHING)
    provider.prepare(batch)
    published = batch.hits.count() - len(unpublished)
    for hit in unpublished:
        hit.batch = batch  # as `prepare` left it (the provider's HIT type)
        try:
            provider_id = (provider.find_hit(hit) if hit.publish_started else None) or _create(provider, hit)
        except ProviderError as error:
            raise ProviderError(f"{error} (batch {batch.pk}: {published} of {batch.hits.count()} HITs published; "
                                f"publish again to go on)") from error
        now = timezone.now()
        Hit.objects.filter(pk=hit.pk, provider_hit_id="").update(
            provider_hit_id=provider_id, state=Hit.State.PUBLISHED, published=now,
            expires=now + timedelta(seconds=batch.lifetime))
        published += 1
    batch.state = Batch.State.PUBLISHED
    batch.published = batch.published or timezone.now()
    batch.final = False
    batch.save(update_fields=["state", "published", "final"])
    selectors.open_hits_changed(batch)
    return batch


def _create(provider: Any, hit: Hit) -> str:
    # Marked (and committed) before the call: if the answer is lost, the next publish looks for the HIT first.
    Hit.objects.filter(pk=hit.pk).update(publish_started=timezone.now())
    return provider.publish_hit(hit, hit.ordered_items())


def batch_expire(*, batch: Batch) -> Batch:
    """No new takers: the HITs expire at the provider. Work already taken may still be submitted,
    so the batch keeps syncing until every HIT is final."""
    return _close(batch, Batch.State.EXPIRED)


def batch_cancel(*, batch: Batch) -> Batch:
    """Retire a batch (a batch with work is never deleted): a draft simply stops; a published batch
    expires its HITs at the provider and keeps syncing until what was taken is in and reviewed."""
    if batch.state == Batch.State.CANCELLED:
        return batch
    return _close(batch, Batch.State.CANCELLED)


def _close(batch: Batch, state: str) -> Batch:
    get_provider(batch.provider).close_batch(batch)
    now = timezone.now()
    batch.hits.filter(state__in=[Hit.State.PUBLISHED, Hit.State.PENDING]).update(state=Hit.State.EXPIRED, expires=now)
    Assignment.objects.filter(hit__batch=batch, state=Assignment.State.CLAIMED).update(state=Assignment.State.EXPIRED)
    batch.state = state
    batch.save(update_fields=["state"])
    return batch


def batch_archive(*, batch: Batch) -> Batch:
    """Hide a batch from the lists. Its work, votes and payments stay, as they must."""
    if batch.state in (Batch.State.PUBLISHING, Batch.State.PUBLISHED):
        raise CrowdError(f"batch {batch.pk} is {batch.state}; cancel it first (its HITs expire at the provider)")
    batch.archived = True
    batch.save(update_fields=["archived"])
    return batch
