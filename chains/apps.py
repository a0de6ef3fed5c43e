"""Multi-stage workflows (write -> check -> rewrite chains, the TimeTravel design): stages as batches joined
by edges, each accepted output of one stage becoming an item of the next, with the check gate, loop limits,
author exclusion and the lineage of every output; the human evaluation (Likert and pairwise) runs as two
design files (chains/evaluation.py)."""

from django.apps import AppConfig


class ChainsConfig(AppConfig):
    name = "chains"
    verbose_name = "Workflows and chains"

    def ready(self):
        from chains import task_types  # noqa: F401  (registers story-write, story-edit)
