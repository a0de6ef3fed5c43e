"""Projects: a dataset effort's steps, the organizer's forms for each, and the jobs behind them."""

from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects"

    def ready(self):
        # Register the project job kinds and the SemEval design's steps (the reproductions register theirs).
        from accounts.access import RULES
        from hits.extensions import BUDGETS, ELIGIBILITY
        from projects import jobs, semeval  # noqa: F401
        from projects.access import ACCESS
        from projects.people import member_refusal
        from projects.services import project_budgets

        BUDGETS.register("project", project_budgets)
        ELIGIBILITY.register("project members", member_refusal)
        RULES.register("projects", ACCESS)
