from rest_framework.permissions import BasePermission

from accounts.roles import ORGANIZER, RESEARCHER, has_role


class IsOrganizer(BasePermission):
    message = "this is for organizers"

    def has_permission(self, request, view):
        return has_role(request.user, ORGANIZER)


class IsResearcher(BasePermission):
    """Researchers read dataset versions and aggregations (organizers may do everything)."""

    message = "this is for researchers and organizers"

    def has_permission(self, request, view):
        return has_role(request.user, RESEARCHER)
