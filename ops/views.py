"""Probes and metrics. They answer plain HTTP (exempt from SECURE_SSL_REDIRECT) so a load balancer
or Prometheus inside the network can reach the web processes directly."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from . import health
from . import metrics as metrics_module


@require_GET
@never_cache
def livez(request: HttpRequest) -> JsonResponse:
    """The process serves requests; nothing outside it is consulted."""
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker answer; 503 naming the parts that do not."""
    checks = health.run_checks()
    failing = sorted(name for name, problem in checks.items() if problem)
    body = {"status": "failing" if failing else "ok", "failing": failing,
            "checks": {name: problem or "ok" for name, problem in checks.items()}}
    return JsonResponse(body, status=503 if failing else 200)


@require_GET
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.SOLARENA_METRICS_TOKEN
    if not token and not settings.DEBUG:  # production: never open to whoever reaches the port
        return JsonResponse({"detail": "the metrics are served only with SOLARENA_METRICS_TOKEN set "
                                       "while DEBUG is off"}, status=403)
    if token:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), token.encode()):
            return JsonResponse({"detail": "the metrics need the token of SOLARENA_METRICS_TOKEN, "
                                           "sent as 'Authorization: Bearer <token>'"}, status=401)
    try:
        body = metrics_module.render()
    except DatabaseError:
        return JsonResponse({"detail": "the database is unreachable; see /healthz"}, status=503)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
