"""A plain HTTP JSON API for lab scripts and notebooks: projects, batches, HITs, assignments,
aggregations, dataset versions and their files, with token auth and an OpenAPI schema."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"
