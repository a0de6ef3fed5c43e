"""Batches, HITs, assignments and the crowd providers behind one interface."""

from django.apps import AppConfig


class HitsConfig(AppConfig):
    name = "hits"
    verbose_name = "HITs"
