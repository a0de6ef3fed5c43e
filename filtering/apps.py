"""Corpus ingestion, sentence splitting and the Table-5 / Appendix-B candidate filter."""

from django.apps import AppConfig
from django.conf import settings


class FilteringConfig(AppConfig):
    name = "filtering"
    verbose_name = "Filtering"

    def ready(self):
        from filtering import nlp

        nlp.use_nltk_data(settings.NLTK_DATA)
        from core.components import COMPONENTS, Component
        from filtering import jobs  # noqa: F401  (registers the filter job kind)

        COMPONENTS.register("candidate-filter", Component(
            "SemEval candidate filter", "Table 5 token patterns and Appendix B POS forms pick the sentences that "
            "become items (filtering/).", runs="manage.py filter_candidates; the project's Filter step"))
