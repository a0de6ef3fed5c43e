"""The organizer's dashboard: every stage at a glance, and long actions run as Celery jobs."""

from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = "Dashboard"
