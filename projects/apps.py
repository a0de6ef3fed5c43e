"""Projects: a dataset effort's steps, the organizer's forms for each, and the jobs behind them."""

from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects"

    def ready(self):
        from projects import jobs, semeval  # noqa: F401  (register the project job kinds and the SemEval design)
