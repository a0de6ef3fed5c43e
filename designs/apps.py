from django.apps import AppConfig


class DesignsConfig(AppConfig):
    name = "designs"

    def ready(self):
        from designs import task_type  # noqa: F401  (registers the "design" task type)
