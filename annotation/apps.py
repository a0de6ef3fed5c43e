"""Annotator pages, votes, spans and organizer review; the task types."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        from annotation import task_types  # noqa: F401  (registers the Subtask-1 and Subtask-2 task types)
