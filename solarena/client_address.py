"""The address a request came from, by the one rule every limit uses: the API's throttles, the
sign-up limit and the login lock-outs (docs/security.md, "Limits")."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR; behind SOLARENA_TRUSTED_PROXIES proxies, the address the outermost of them saw
    (that many from the right of X-Forwarded-For). DRF's own rule, so API throttles count the same
    address the site's other limits do."""
    return BaseThrottle().get_ident(request)
