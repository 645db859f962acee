from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "operations"

    def ready(self) -> None:
        # Registered on import: the deployment checks, and the worker's signals.
        from . import checks, worker  # noqa: F401
