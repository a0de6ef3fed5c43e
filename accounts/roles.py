"""Site roles. Organizers are staff and may do everything; annotators take
tests and HITs; researchers read datasets. A role is a Django group."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

ORGANIZER, ANNOTATOR, RESEARCHER = "organizer", "annotator", "researcher"
ROLES = (ORGANIZER, ANNOTATOR, RESEARCHER)


def role_names(user):
    """The user's group names, read once per request (the user object lives as long as the request)."""
    if not hasattr(user, "_role_names"):
        user._role_names = frozenset(user.groups.values_list("name", flat=True))
    return user._role_names


def has_role(user, role):
    """Organizers (the group, or staff) may do everything; the other roles only their own."""
    if not user.is_authenticated:
        return False
    names = role_names(user)
    return user.is_staff or ORGANIZER in names or role in names


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
