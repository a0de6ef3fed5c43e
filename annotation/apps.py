"""Annotator pages, votes, spans and organizer review (not built yet)."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"
