"""The span review: Subtask-2 answers as reviewable annotations, and the organizers' pages."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"
