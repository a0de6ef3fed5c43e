"""Job kinds: each app registers the long actions it offers (see core.registry).

A kind names the model of its target (or none), the function that does the
work and, where the work writes rows as it goes, how to read its progress.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.registry import Registry

if TYPE_CHECKING:
    from django.db.models import Model

    from jobs.models import Job


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str  # what a person reads: "publish a batch"
    # "app_label.Model" of the target, or "" when the job has none.
    model: str
    # run(job, target) -> (message, result): does the work; raises CrowdsetError when it cannot be done.
    run: Callable[[Job, Any], tuple[str, dict[str, Any]]]
    # progress(job) -> (done, total) read from the rows the work writes, or None.
    progress: Callable[[Job], tuple[int, int] | None] | None = None
    # A cancellable job's work checks jobs.services.job_cancelled(job) between steps.
    cancellable: bool = False

    def target_model(self) -> type[Model] | None:
        if not self.model:
            return None
        from django.apps import apps

        return apps.get_model(self.model)


JOB_KINDS: Registry[JobKind] = Registry("job kind")
