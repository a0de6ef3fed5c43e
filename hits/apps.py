"""Batches, HITs, assignments and the crowd providers behind one interface (not built yet)."""

from django.apps import AppConfig


class HitsConfig(AppConfig):
    name = "hits"
    verbose_name = "HITs"
