"""What /healthz checks: the database answers a query and the broker accepts a connection, each
within a short time. A check returns None when healthy, else a short reason (logged in full)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)


def check_database(alias: str = "default") -> str | None:
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        log.warning("health: database %r unreachable: %s", alias, exc)
        return f"unreachable ({type(exc).__name__})"
    return None


def check_broker(url: str | None = None, timeout: float | None = None) -> str | None:
    from solarena.celery import app

    url = url or settings.CELERY_BROKER_URL
    timeout = timeout if timeout is not None else settings.SOLARENA_HEALTH_TIMEOUT_SECONDS
    try:
        with app.connection_for_write(url, connect_timeout=timeout) as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:
        log.warning("health: broker unreachable: %s", exc)
        return f"unreachable ({type(exc).__name__})"
    return None


def run_checks() -> dict[str, str | None]:
    return {"database": check_database(), "broker": check_broker()}
