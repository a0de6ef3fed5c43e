"""The one place that decides "may this person do this in this project" (registered as accounts.access's rule).

A person holds a role in each project they are a member of, as doccano's and Label Studio's teams have them:
organizer (runs the project: everything), reviewer (span review, spot checks, chains, writing evidence; reads
the labels), annotator (does the in-house work) and researcher (reads labels, reports and exports). A paused or
removed annotator still sees the project's work, and is told why they take none; a removed member of another
role sees nothing of it.

Two things are the site's rather than a project's, as they were before projects had people of their own:
- what belongs to no project (a batch made from the command line), and a project nobody has been named to
  organize yet (projects made before roles, or from the command line without --organizer): a site role
  applies to them (the site's organizers run them, its annotators work on them, its researchers read them);
- a project's in-house work is open to every annotator of the site when its organizer opens it (off by
  default; projects made before roles are open).
Site staff may do everything (accounts.access).
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef, QuerySet

from accounts import access
from accounts.access import MANAGE, READ, REVIEW, WORK
from accounts.roles import ANNOTATOR, ORGANIZER, RESEARCHER, REVIEWER, role_groups
from projects.models import Member, Project

ROLE_ACTIONS = {ORGANIZER: {MANAGE, REVIEW, WORK, READ}, REVIEWER: {REVIEW, READ}, ANNOTATOR: {WORK},
                RESEARCHER: {READ}}


def _links() -> dict[str, tuple[Any, str, str]]:
    """How a row of each model belongs to projects: (the link table, its column naming the row's object, the
    path from the row to that object's id). A model with a `project` key of its own says so with a None table."""
    batches, tests = Project.batches.through, Project.tests.through
    runs, versions = Project.aggregations.through, Project.versions.through
    corpora, filters = Project.corpora.through, Project.filter_runs.through
    return {
        "projects.project": (None, "", "pk"),
        "projects.member": (None, "", "project_id"), "projects.invite": (None, "", "project_id"),
        "projects.upload": (None, "", "project_id"), "projects.sample": (None, "", "project_id"),
        "hits.batch": (batches, "batch_id", "pk"), "hits.hit": (batches, "batch_id", "batch_id"),
        "hits.item": (batches, "batch_id", "batch_id"), "hits.assignment": (batches, "batch_id", "hit__batch_id"),
        "hits.payment": (batches, "batch_id", "batch_id"),
        "annotation.spanannotation": (batches, "batch_id", "item__batch_id"),
        "aggregation.spotcheck": (batches, "batch_id", "assignment__hit__batch_id"),
        "aggregation.aggregationrun": (runs, "aggregationrun_id", "pk"),
        "qualification.qualificationtest": (tests, "qualificationtest_id", "pk"),
        "releases.datasetversion": (versions, "datasetversion_id", "pk"),
        "filtering.corpus": (corpora, "corpus_id", "pk"), "filtering.filterrun": (filters, "filterrun_id", "pk"),
    }


class ProjectAccess:
    def roles(self, user: Any) -> frozenset[str]:
        return frozenset(role for _, role, _ in self._memberships(user))

    def rows(self, user: Any, queryset: QuerySet, action: str) -> QuerySet:
        label = queryset.model._meta.label_lower
        links = _links()
        if label not in links:
            raise LookupError(f"{label} has no project to decide access by; add it to projects.access")
        table, column, path = links[label]
        ids = self.project_ids(user, action)
        if table is None:
            return queryset.filter(**{f"{path}__in": ids})
        linked = table.objects.filter(**{column: OuterRef(path)})
        allowed = Exists(linked.filter(project_id__in=ids))
        if action in self._site_actions(user):  # what belongs to no project is the site's
            allowed = allowed | ~Exists(linked)
        return queryset.filter(allowed)

    def project_ids(self, user: Any, action: str) -> set[int]:
        """The projects in which `user` may `action`, read once per user object (it lives as long as a request)."""
        if not hasattr(user, "_project_access"):
            user._project_access = {}
        cache = user._project_access
        if action not in cache:
            # A removed annotator still sees the work, and is told why they take none (projects.people's refusal).
            ids = {project for project, role, state in self._memberships(user)
                   if action in ROLE_ACTIONS[role] and (state != Member.State.REMOVED or action == WORK)}
            site = action in self._site_actions(user)
            open_work = action == WORK and self._annotates(user)
            if site or open_work:
                ids |= {project for project, organized, is_open in self._projects(user)
                        if (site and not organized) or (open_work and is_open)}
            cache[action] = ids
        return cache[action]

    def _projects(self, user: Any) -> list[tuple[int, bool, bool]]:
        """Every project: (id, whether someone is named its organizer, whether its work is open to the site). One
        query a request, whatever is asked."""
        if not hasattr(user, "_site_projects"):
            organized = Member.objects.filter(project=OuterRef("pk"), role=ORGANIZER).exclude(
                state=Member.State.REMOVED)
            user._site_projects = list(Project.objects.annotate(organized=Exists(organized))
                                       .values_list("pk", "organized", "open_to_site"))
        return user._site_projects

    def _memberships(self, user: Any) -> list[tuple[int, str, str]]:
        if not hasattr(user, "_memberships"):
            user._memberships = list(Member.objects.filter(user_id=user.pk).values_list("project_id", "role", "state"))
        return user._memberships

    def _site_actions(self, user: Any) -> set[str]:
        return {action for role in role_groups(user) for action in ROLE_ACTIONS.get(role, ())}

    def _annotates(self, user: Any) -> bool:
        """An annotator of the site: the site's role, or an annotator (or organizer) of some project."""
        return WORK in self._site_actions(user) or any(
            WORK in ROLE_ACTIONS[role] and state != Member.State.REMOVED for _, role, state in self._memberships(user))


ACCESS = ProjectAccess()


def project_view(action: str):
    """A page of one project (its slug in the URL) for people who may `action` in it: the view gets the project in
    place of the slug; anyone else gets a 404, as if it did not exist."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, slug, *args, **kwargs):
            project = access.get_or_404(request.user, Project.objects.all(), action, slug=slug)
            return view(request, project, *args, **kwargs)

        return wrapped

    return decorator
