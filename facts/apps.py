"""Free-text facts and counter-facts about a highlighted entity (the Cheap Facts design): RTE texts in,
the writing task with its quality rules, the statements out as RTE-style T-H pairs with the paper's tables."""

from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "Facts and counter-facts"

    def ready(self):
        from facts import task_types  # noqa: F401  (registers the "facts" task type)
