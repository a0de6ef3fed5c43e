"""Sampling, splits, SemEval-format exports and the scorer (not built yet)."""

from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "datasets"
    verbose_name = "Datasets"
