"""Requests whose path or query string holds a NUL character are refused with a 400 before any view
runs: no name or value of this site may contain one, and PostgreSQL cannot even compare a text
column with such a string (the look-up itself would fail with a server error)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

MESSAGE = ("the request's path or query string holds a NUL character (%00), which no name or value "
           "here may hold")


class RejectNulCharactersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or any("\x00" in key or any("\x00" in value for value in values)
                                         for key, values in request.GET.lists()):
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": MESSAGE}, status=400)
            return HttpResponseBadRequest(MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


API_ERROR_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
                   413: "too_large", 429: "throttled", 500: "server_error", 502: "bad_gateway",
                   503: "unavailable"}


class ApiErrorsAsJsonMiddleware:
    """Every error the API answers is JSON, including the ones Django answers before or after any
    API view runs (an unknown path, a CSRF refusal, an unhandled exception): a client that parses
    the body is never handed an HTML page, which in the demo (DEBUG) is a 250 KB debug page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (response.status_code < 400 or not request.path.startswith("/api/")
                or response.get("Content-Type", "").startswith("application/json")):
            return response
        code = API_ERROR_CODES.get(response.status_code, "error")
        detail = {404: f"no such API path: {request.path}",
                  500: "the server failed on this request; it is logged with its request id"}.get(
            response.status_code, response.reason_phrase.lower())
        replaced = JsonResponse({"detail": detail, "code": code}, status=response.status_code)
        for header in ("Retry-After", "Allow"):
            if header in response:
                replaced[header] = response[header]
        return replaced
