"""Request bodies over SOLARENA_MAX_REQUEST_BYTES are refused from their Content-Length alone, before
any of the body is read and before authentication: a client, signed in or not, cannot make the site
spool a large upload to disk only to be told no. A body sent in chunks without a length is refused
too (411), since its size is known only once it has been read."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def _mib(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):g} MiB"


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=status)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class RequestBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit: int = settings.SOLARENA_MAX_REQUEST_BYTES
        declared = request.META.get("CONTENT_LENGTH", "").strip()
        if not declared:
            if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
                return _refuse(request, "a request body needs a Content-Length header", 411)
            return self.get_response(request)
        if not declared.isascii() or not declared.isdigit():
            return _refuse(request, "the Content-Length header is not a number of bytes", 400)
        if int(declared) > limit:
            return _refuse(request, f"the request body is over the {_mib(limit)} limit of this site", 413)
        return self.get_response(request)
