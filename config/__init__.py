# The Celery app is imported here so that @shared_task binds to it whenever
# Django starts (web, worker, beat or a management command).
from config.celery import app as celery_app

__all__ = ["celery_app"]
