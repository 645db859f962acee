"""With DEBUG off, /metrics answers only with SOLARENA_METRICS_TOKEN configured: without one it is
refused (403), not served to whoever reaches the port; with DEBUG on it may stay open."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_production_without_a_token_refuses_the_metrics(settings) -> None:
    settings.DEBUG, settings.SOLARENA_METRICS_TOKEN = False, ""
    refused = Client(HTTP_HOST="localhost").get("/metrics")
    assert refused.status_code == 403 and "SOLARENA_METRICS_TOKEN" in refused.json()["detail"]


def test_debug_without_a_token_serves_the_metrics(settings) -> None:
    settings.DEBUG, settings.SOLARENA_METRICS_TOKEN = True, ""
    assert Client(HTTP_HOST="localhost").get("/metrics").status_code == 200
