"""Vote rules, agreement, worker quality and spot checks (not built yet)."""

from django.apps import AppConfig


class AggregationConfig(AppConfig):
    name = "aggregation"
    verbose_name = "Aggregation"
