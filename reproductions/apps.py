from django.apps import AppConfig


class ReproductionsConfig(AppConfig):
    name = "reproductions"
    verbose_name = "Paper reproductions"

    def ready(self):
        from core.components import COMPONENTS, Component
        from reproductions import project_steps  # noqa: F401  (registers the three designs' project steps)

        COMPONENTS.register("pair-split", Component(
            "Pair-keeping split", "An item and its mirror (pair_id) stay on one side of the train/dev split.",
            runs="manage.py copa export"))
