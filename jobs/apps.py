"""Long actions run outside the request: the Job row, the registry of job kinds, the runners."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "Jobs"
