"""Which jobs a person may see and start: those that work on what they may act on (accounts.access), and those they
started themselves."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts import access
from jobs.models import Job
from jobs.registry import JOB_KINDS

# Reading a dataset version includes exporting it; every other job changes a project's work.
READING_KINDS = ("export",)


def job_action(kind: str) -> str:
    return access.READ if kind in READING_KINDS else access.MANAGE


def jobs_visible(user: Any, jobs: QuerySet | None = None) -> QuerySet:
    jobs = Job.objects.all() if jobs is None else jobs
    if access.is_staff(user):
        return jobs
    if not user.is_authenticated:
        return jobs.none()
    allowed = Q(created_by=user)
    by_model: dict[Any, list[str]] = {}
    for name, kind in JOB_KINDS.items():
        model = kind.target_model()
        if model is not None:
            by_model.setdefault((model, job_action(name)), []).append(name)
    for (model, action), kinds in by_model.items():
        targets = access.rows(user, model.objects.all(), action).values("pk")
        allowed |= Q(kind__in=kinds, target__in=targets)
    return jobs.filter(allowed)


def may_start(user: Any, kind: str, target: int | None) -> bool:
    """Whether `user` may start a job of `kind` on `target` (its model's row)."""
    if kind not in JOB_KINDS:
        return True  # job_start names the unknown kind
    model = JOB_KINDS.get(kind).target_model()
    if model is None or target is None:
        return access.is_staff(user)
    found = model._default_manager.filter(pk=target)
    # A target that does not exist is job_start's to name; one that exists elsewhere is not found here.
    return not found.exists() or access.rows(user, found, job_action(kind)).exists()
