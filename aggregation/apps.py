"""Vote rules, agreement, worker quality and spot checks."""

from django.apps import AppConfig


class AggregationConfig(AppConfig):
    name = "aggregation"
    verbose_name = "Aggregation"

    def ready(self):
        from aggregation import jobs  # noqa: F401  (registers the aggregate job kind)
        from aggregation.services import later_accuracy, settled_items
        from hits.extensions import SETTLED, WORKER_ACCURACY

        WORKER_ACCURACY.register("aggregation", later_accuracy)
        SETTLED.register("design", settled_items)  # the paper's rules, for designs whose answers are yes/no votes
