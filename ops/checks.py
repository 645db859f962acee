"""Deployment checks (`manage.py check --deploy`) for settings Django itself does not know."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register

DEVELOPMENT_HIDDEN_SECRET = "solarena-local"


@register(Tags.security, deploy=True)
def hidden_secret_is_private(**_: Any) -> list[Error]:
    if settings.HIDDEN_SECRET == DEVELOPMENT_HIDDEN_SECRET:
        return [Error(
            "SOLARENA_HIDDEN_SECRET is the public development default, so anyone can draw this "
            "deployment's hidden workloads.",
            hint="Set SOLARENA_HIDDEN_SECRET to a long random value and keep it private.",
            id="ops.E001")]
    return []
