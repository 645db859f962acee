"""Every request gets an id (a well-formed X-Request-ID from the proxy in front, else a new one),
echoed in the response and put on the request's log records; each request logs one line."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from .logging import request_id

log = logging.getLogger("solarena.requests")
HEADER = "X-Request-ID"
WELL_FORMED = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(HEADER, "")
        rid = given if WELL_FORMED.fullmatch(given) else uuid.uuid4().hex
        request.request_id = rid  # type: ignore[attr-defined]
        token = request_id.set(rid)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[HEADER] = rid
            log.info("%s %s %s", request.method, request.path, response.status_code,
                     extra={"method": request.method, "path": request.path,
                            "status": response.status_code,
                            "duration_ms": round((time.perf_counter() - started) * 1e3, 2)})
            return response
        finally:
            request_id.reset(token)
