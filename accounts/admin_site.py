"""The admin as the organizers' operations console: open to the organizer role, not only to staff."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig

from accounts.roles import ORGANIZER, has_role


class CrowdsetAdminSite(admin.AdminSite):
    site_header = "crowdset operations"
    site_title = "crowdset"
    index_title = "Every row of the platform"

    def has_permission(self, request):
        return request.user.is_active and (request.user.is_staff or has_role(request.user, ORGANIZER))


class CrowdsetAdminConfig(AdminConfig):
    default_site = "accounts.admin_site.CrowdsetAdminSite"
