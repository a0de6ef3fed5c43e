"""The admin as the site's operations console: every row of every project, so for site staff only (an organizer
runs their own projects on the project pages, which show only what they may see)."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig


class CrowdsetAdminSite(admin.AdminSite):
    site_header = "crowdset operations"
    site_title = "crowdset"
    index_title = "Every row of the platform"

    def has_permission(self, request):
        return request.user.is_active and request.user.is_staff


class CrowdsetAdminConfig(AdminConfig):
    default_site = "accounts.admin_site.CrowdsetAdminSite"
