"""Roles (organizer, reviewer, annotator, researcher). A person holds a role in each project they are a member of
(projects.access decides what each may do there); a site role, a Django group, covers what belongs to no project.
Staff may do everything. A role here opens the pages of that role; what the pages show is what the person may
see (accounts.access)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from accounts import access

ORGANIZER, REVIEWER, ANNOTATOR, RESEARCHER = "organizer", "reviewer", "annotator", "researcher"
ROLES = (ORGANIZER, REVIEWER, ANNOTATOR, RESEARCHER)
# A role's pages are open to the roles that include it.
INCLUDED = {ORGANIZER: {ORGANIZER}, REVIEWER: {ORGANIZER, REVIEWER}, ANNOTATOR: {ORGANIZER, ANNOTATOR},
            RESEARCHER: {ORGANIZER, REVIEWER, RESEARCHER}}


def role_groups(user):
    """The user's site roles (group names), read once per request (the user object lives as long as the request)."""
    if not user.is_authenticated:
        return frozenset()
    if not hasattr(user, "_role_names"):
        user._role_names = frozenset(user.groups.values_list("name", flat=True))
    return user._role_names


def role_names(user):
    """Site roles and the roles held in projects."""
    if not hasattr(user, "_all_roles"):
        user._all_roles = role_groups(user) | access.project_roles(user)
    return user._all_roles


def has_role(user, role):
    """Staff may do everything; anyone else opens the pages of a role they hold (on the site or in a project), or
    of a role included in one of theirs."""
    if not user.is_authenticated:
        return False
    # The site's roles first: they are read anyway, and the projects' are read only when those do not answer.
    return user.is_staff or bool(INCLUDED[role] & role_groups(user)) or bool(INCLUDED[role] & role_names(user))


def role_required(role):
    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not has_role(request.user, role):
                raise PermissionDenied(f"this page is for the {role} role")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


def group(role):
    """The role's group. The roles migration creates them; this also survives a flushed database."""
    from django.contrib.auth.models import Group

    return Group.objects.get_or_create(name=role)[0]


def context(request):
    """Template context: which roles the user has, for the navigation."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": {}}
    return {"roles": {role: has_role(user, role) for role in ROLES}}


# The apps whose rows organizers keep in the admin, and the models whose rows they may delete: none
# that holds annotated or paid work (those are archived, never deleted).
PLATFORM_APPS = ("filtering", "hits", "qualification", "annotation", "aggregation", "releases", "projects", "jobs")
DELETABLE = {("jobs", "job"), ("projects", "upload"), ("projects", "sample")}


def grant_organizer_permissions(sender=None, **kwargs):
    """Give the organizer group view, add and change on every platform model, delete on DELETABLE."""
    from django.contrib.auth.models import Permission

    wanted = []
    for permission in Permission.objects.filter(content_type__app_label__in=PLATFORM_APPS).select_related(
            "content_type"):
        action = permission.codename.split("_", 1)[0]
        model = (permission.content_type.app_label, permission.content_type.model)
        if action in ("view", "add", "change") or model in DELETABLE:
            wanted.append(permission)
    group(ORGANIZER).permissions.add(*wanted)
