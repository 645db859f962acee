"""The sign-up limit: attempts per address, counted in the cache like the API's throttles and by
the same address (solarena.client_address). Failed logins are django-axes' (settings.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.throttling import SimpleRateThrottle

from solarena.client_address import client_address


class SignupThrottle(SimpleRateThrottle):
    scope = "signup"

    def __init__(self) -> None:
        self.rate = settings.SOLARENA_SIGNUP_RATE
        super().__init__()

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


def signup_wait(request: HttpRequest) -> int | None:
    """Count one sign-up attempt; None while under the limit, else the seconds until the next."""
    throttle = SignupThrottle()
    if throttle.allow_request(request, None):
        return None
    return max(1, round(throttle.wait() or 1))
