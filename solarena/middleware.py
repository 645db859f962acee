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
