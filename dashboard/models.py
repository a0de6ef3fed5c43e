"""Long actions started from pages, run by a Celery worker.

A Job row says what was asked, by whom, and how it ended; while it runs, its
progress is read from the rows the work itself writes (filter chunks done,
HITs with a provider id), so the page never depends on the worker reporting.
"""

from django.conf import settings
from django.db import models


class Job(models.Model):
    class Kind(models.TextChoices):
        FILTER = "filter"  # target: a corpus
        PUBLISH = "publish"  # target: a batch
        SYNC = "sync"
        AGGREGATE = "aggregate"
        EXPORT = "export"  # target: a dataset version

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    target = models.PositiveBigIntegerField()
    state = models.CharField(max_length=20, choices=State.choices, default=State.QUEUED)
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self):
        return f"{self.kind} {self.target} ({self.state})"
