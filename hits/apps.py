"""Batches, HITs, assignments and the crowd providers behind one interface."""

from django.apps import AppConfig


class HitsConfig(AppConfig):
    name = "hits"
    verbose_name = "HITs"

    def ready(self):
        from filtering.extensions import SENTENCE_USES
        from hits import jobs  # noqa: F401  (registers the publish, sync and review job kinds)
        from hits.services import items_using

        SENTENCE_USES.register("hits", items_using)
