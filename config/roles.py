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
    if not user.is_authenticated:
        return False
    return user.is_staff or role in role_names(user)


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
