"""Balanced COPA's component: the paper's sample, its batches from designs/bcopa.yaml and its report."""

from django.apps import AppConfig


class ChoicesConfig(AppConfig):
    name = "choices"
    verbose_name = "Balanced COPA"
