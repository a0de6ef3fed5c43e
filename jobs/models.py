"""Long actions started from pages, run outside the request.

A Job row says what was asked, by whom, and how it ended; while it runs, its
progress is read from the rows the work itself writes (filter chunks done,
HITs with a provider id), so a page never depends on the worker reporting.
A running job beats a heartbeat; one whose heartbeat stops (its worker was
killed) is marked failed and can be started again.
"""

from django.conf import settings
from django.db import models


class Job(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    LIVE_STATES = (State.QUEUED, State.RUNNING)

    # A name registered in jobs.registry.JOB_KINDS by the app that does the work.
    kind = models.CharField(max_length=40)
    # The id of the object the job works on (its model is the kind's), if any.
    target = models.PositiveBigIntegerField(null=True, blank=True)
    options = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=20, choices=State.choices, default=State.QUEUED)
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            # One live job per kind and target: a second click returns the first (jobs.services.job_start).
            models.UniqueConstraint(fields=["kind", "target"], condition=models.Q(state__in=["queued", "running"]),
                                    name="job_one_live"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.target or ''} ({self.state})".replace("  ", " ")

    @property
    def is_live(self) -> bool:
        return self.state in self.LIVE_STATES
