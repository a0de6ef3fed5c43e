"""The jobs' Celery tasks, where Celery's autodiscovery looks for them (they are defined in jobs.services)."""

from jobs.services import job_run_task, reap_stale_jobs

__all__ = ["job_run_task", "reap_stale_jobs"]
