"""The project's URLs plus one API path whose view fails, to see what a client gets for a 500."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from solarena.urls import urlpatterns as project_urlpatterns


def failing_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


urlpatterns = [path("api/v1/failing/", failing_view), *project_urlpatterns]
