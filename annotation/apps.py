"""Annotator pages, votes, spans and organizer review; the task types."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        from annotation import task_types  # noqa: F401  (registers the task types)
        from annotation.services import spans_record_submission
        from hits.signals import assignment_submitted

        assignment_submitted.connect(spans_record_submission, dispatch_uid="annotation.spans_record_submission")
