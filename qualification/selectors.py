"""Read models of the qualification pages: a fixed number of queries however large the pool."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max

from hits.extensions import later_accuracy
from hits.models import Worker
from qualification.models import Grant, QualificationTest


def pool_rows(test: QualificationTest) -> list[dict[str, Any]]:
    """Everyone who took any version of the test: attempts, best score, grant (or revocation), and
    how they did later, as the apps that measure workers report it. Three queries."""
    workers = list(Worker.objects.filter(qualification_attempts__test__name=test.name)
                   .annotate(attempts=Count("qualification_attempts", distinct=True),
                             best=Max("qualification_attempts__score"))
                   .select_related("user").order_by("-best", "pk"))
    grants = {g.worker_id: g for g in Grant.objects.filter(test__name=test.name).select_related("test")}
    accuracy = later_accuracy(worker.pk for worker in workers)
    return [{"worker": w, "attempts": w.attempts, "best": w.best, "grant": grants.get(w.pk),
             "later_accuracy": accuracy.get(w.pk)} for w in workers]
