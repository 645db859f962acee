"""Limits count the address a request really came from: X-Forwarded-For is read only as far as
SOLARENA_TRUSTED_PROXIES proxies vouch for it, so a client that writes its own does not escape."""

from __future__ import annotations

from unittest import mock

import pytest
from django.conf import settings
from django.test import RequestFactory, override_settings
from rest_framework.throttling import SimpleRateThrottle

from leaderboard.models import Hardware
from solarena.client_address import client_address
from tests.api.support import client_for

pytestmark = pytest.mark.django_db
HARDWARE = "/api/v1/hardware/"


def behind(proxies: int) -> override_settings:
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": proxies})


def test_a_forged_forwarded_for_does_not_lift_the_anonymous_limit(cpu: Hardware) -> None:
    api = client_for(None)
    with mock.patch.dict(SimpleRateThrottle.THROTTLE_RATES, {"anon": "3/minute"}):
        answers = [api.get(HARDWARE, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code for n in range(6)]
    assert answers == [200, 200, 200, 429, 429, 429]


def test_no_trusted_proxy_is_the_default() -> None:
    assert settings.TRUSTED_PROXIES == 0 and settings.REST_FRAMEWORK["NUM_PROXIES"] == 0
    request = RequestFactory().get("/", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert client_address(request) == "203.0.113.9"


def test_behind_one_proxy_the_right_most_address_counts(cpu: Hardware) -> None:
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2",
                                   HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9")
    with behind(1):
        assert client_address(request) == "203.0.113.9"
        api = client_for(None)
        with mock.patch.dict(SimpleRateThrottle.THROTTLE_RATES, {"anon": "2/minute"}):
            # The client forges the left part; the proxy appends the address it saw, the same each time.
            answers = [api.get(HARDWARE, REMOTE_ADDR="10.0.0.2",
                               HTTP_X_FORWARDED_FOR=f"198.51.100.{n}, 203.0.113.9").status_code
                       for n in range(3)]
            assert answers == [200, 200, 429]
            other = api.get(HARDWARE, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.10")
            assert other.status_code == 200
