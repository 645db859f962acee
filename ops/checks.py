"""Deployment checks (`manage.py check --deploy`) for settings Django itself does not know."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def hidden_secret_is_private(**_: Any) -> list[Error]:
    secret, shortest = settings.HIDDEN_SECRET, settings.MIN_HIDDEN_SECRET_LENGTH
    if secret == settings.DEVELOPMENT_HIDDEN_SECRET or len(secret) < shortest:
        return [Error(
            f"SOLARENA_HIDDEN_SECRET is the public development default or shorter than "
            f"{shortest} characters, so others could draw this deployment's hidden "
            "workloads.",
            hint="Set SOLARENA_HIDDEN_SECRET to a long random value and keep it private.",
            id="ops.E001")]
    return []
