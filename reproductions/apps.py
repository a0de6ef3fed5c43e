from django.apps import AppConfig


class ReproductionsConfig(AppConfig):
    name = "reproductions"
    verbose_name = "Paper reproductions"

    def ready(self):
        from core.components import COMPONENTS, Component
        from designs.items import XML_ITEMS
        from reproductions import project_steps  # noqa: F401  (registers the three designs' project steps)
        from reproductions.copa import copa_rows
        from reproductions.facts import fact_rows

        # The two papers' XML corpora are items wherever items are read (design new, the browser).
        XML_ITEMS.register("copa-corpus", copa_rows)
        XML_ITEMS.register("entailment-corpus", fact_rows)

        COMPONENTS.register("pair-split", Component(
            "Pair-keeping split", "An item and its mirror (pair_id) stay on one side of the train/dev split.",
            runs="manage.py copa export"))
