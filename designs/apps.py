from django.apps import AppConfig


class DesignsConfig(AppConfig):
    name = "designs"

    def ready(self):
        from designs import components, task_type  # noqa: F401  (task_type registers the "design" task type)

        components.register()
