"""2-choice validation (Balanced COPA's design): the task type, batches from COPA files, the report."""

from django.apps import AppConfig


class ChoicesConfig(AppConfig):
    name = "choices"
    verbose_name = "2-choice validation"

    def ready(self):
        from choices import task_types  # noqa: F401  (registers the "choice" task type)
