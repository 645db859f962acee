"""Every error under /api/ is JSON with a detail and a code, also the ones no API view answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client


def _json_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert body["code"] == code and body["detail"]
    return body


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/v2/", "/api/"])
def test_an_unknown_api_path_answers_json_404(path: str, settings: Any) -> None:
    settings.DEBUG = True  # the demo's setting, where Django's own 404 is a debug HTML page
    body = _json_error(Client().get(path), 404, "not_found")
    assert path in body["detail"]


@pytest.mark.django_db
def test_a_failing_view_answers_json_500(settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.api.urls_with_a_failing_view"
    settings.DEBUG = True
    body = _json_error(Client(raise_request_exception=False).get("/api/v1/failing/"), 500, "server_error")
    assert "a bug in a view" not in body["detail"]  # nothing of the server's internals


@pytest.mark.django_db
def test_pages_keep_their_html_errors() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
