"""Dataset versions: sampling, splits, the released SemEval formats, statistics, the scorer and baselines.

Named `releases`, not `datasets`: a project-level `datasets` package would
shadow the Hugging Face library researchers load the exports with.
"""

from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Dataset versions"

    def ready(self):
        from releases import jobs  # noqa: F401  (registers the export job kind)
