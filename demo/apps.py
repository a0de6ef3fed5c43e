"""The end-to-end demo command that runs the pipeline on embedded defaults."""

from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "demo"
    verbose_name = "Demo"
