"""Who may do what, and where: the one question every page, form and API view asks.

The actions: MANAGE (run a project: its steps, batches, money and people), REVIEW (span review, spot checks,
chains, writing evidence), WORK (in-house work: the work list, claims, task pages, screening tests) and READ
(labels, reports, exports, dataset versions). The answer comes from one place, the projects app's rule
(projects.access), registered here from its AppConfig.ready(): an app lists `rows(user, queryset, action)`,
fetches one object with `get_or_404(...)` (another project's object is not found, never "forbidden"), and never
decides by itself. Site staff may do everything.
"""

from __future__ import annotations

from typing import Any, Protocol

from django.db.models import QuerySet
from django.http import Http404

from core.registry import Registry

MANAGE, REVIEW, WORK, READ = "manage", "review", "work", "read"
ACTIONS = (MANAGE, REVIEW, WORK, READ)


class AccessRule(Protocol):
    def rows(self, user: Any, queryset: QuerySet, action: str) -> QuerySet:
        """The rows of `queryset` that `user` may `action` (never called for staff)."""

    def roles(self, user: Any) -> frozenset[str]:
        """The roles `user` holds in any project (organizer, reviewer, annotator, researcher)."""


# Exactly one rule: the projects app's.
RULES: Registry[AccessRule] = Registry("access rule")


def _rule() -> AccessRule:
    found = RULES.items()
    if len(found) != 1:
        raise LookupError(f"one access rule must be registered, not {len(found)} (the projects app registers it)")
    return found[0][1]


def is_staff(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def rows(user: Any, queryset: QuerySet, action: str) -> QuerySet:
    """What of `queryset` the user may `action`: all of it for staff, none for a visitor."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
    if not user.is_authenticated:
        return queryset.none()
    if is_staff(user):
        return queryset
    return _rule().rows(user, queryset, action)


def get_or_404(user: Any, queryset: QuerySet, action: str, **lookup: Any) -> Any:
    """The one object `lookup` names, if the user may `action` it; else a 404, as if it did not exist."""
    found = rows(user, queryset.filter(**lookup), action).first()
    if found is None:
        raise Http404(f"no {queryset.model._meta.verbose_name} like that here")
    return found


def project_roles(user: Any) -> frozenset[str]:
    """The roles the user holds in some project (none for a visitor)."""
    if not user.is_authenticated:
        return frozenset()
    return _rule().roles(user)
