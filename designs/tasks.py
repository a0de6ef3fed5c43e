"""The designs app's Celery tasks, where Celery's autodiscovery looks for them (defined beside what they run)."""

from designs.model_runs import reap_stale_model_runs

__all__ = ["reap_stale_model_runs"]
