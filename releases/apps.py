"""Dataset versions: sampling, splits, the released SemEval formats, statistics, the scorer and baselines.

Named `releases`, not `datasets`: a project-level `datasets` package would
shadow the Hugging Face library researchers load the exports with.
"""

from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Dataset versions"

    def ready(self):
        from core.components import COMPONENTS, Component
        from releases import jobs  # noqa: F401  (registers the export job kind)

        COMPONENTS.register("semeval-export", Component(
            "SemEval file formats", "Exports the released Subtask-1/Subtask-2 CSV formats with the 65/35 split "
            "(releases/).", runs="manage.py dataset export"))
        COMPONENTS.register("cue-report", Component(
            "Superficial-cue report", "Tokens whose presence gives the right alternative or label away "
            "(productivity, coverage), as Balanced COPA reports them (core.cues).",
            runs="manage.py dataset cues; manage.py copa cues"))
