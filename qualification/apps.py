"""The 40-item screening test and worker grants (not built yet)."""

from django.apps import AppConfig


class QualificationConfig(AppConfig):
    name = "qualification"
    verbose_name = "Qualification"
