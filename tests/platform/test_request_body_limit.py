"""A request body over SOLARENA_MAX_REQUEST_BYTES is refused from its Content-Length, before any of it
is read, for anonymous and signed-in clients alike: 413, as JSON on the API and plain text on the site;
a chunked body without a length is refused with 411."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from tests.api.support import SUBMISSIONS, api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
OVERSIZED = str(300 << 20)


class UnreadableBody:
    """A request body that fails the test if anything reads it."""

    def read(self, *args: object) -> bytes:
        raise AssertionError("the oversized body was read")

    readline = read


def post(client: Client, path: str, **meta: str):
    return client.generic("POST", path, b"x", "application/octet-stream",
                          **{"CONTENT_LENGTH": OVERSIZED, "wsgi.input": UnreadableBody(), **meta})


def test_the_limit_covers_the_largest_upload() -> None:
    from submissions.bundles import DEFAULT_LIMITS

    assert settings.SOLARENA_MAX_REQUEST_BYTES > DEFAULT_LIMITS.max_archive_bytes
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= settings.SOLARENA_MAX_REQUEST_BYTES
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE <= settings.SOLARENA_MAX_REQUEST_BYTES


@pytest.mark.parametrize("signed_in", [False, True])
def test_api_refuses_an_oversized_body_unread_as_json(signed_in: bool) -> None:
    client = client_for(api_user() if signed_in else None)
    response = post(client, SUBMISSIONS)
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]


@pytest.mark.parametrize("signed_in", [False, True])
def test_site_refuses_an_oversized_body_unread_as_a_plain_page(signed_in: bool) -> None:
    client = Client()
    if signed_in:
        client.force_login(factories.make_user("ada"))
    for path in ("/submit/", "/accounts/login/"):
        response = post(client, path)
        assert response.status_code == 413
        assert response["Content-Type"].startswith("text/plain") and b"limit" in response.content


def test_a_chunked_body_without_a_length_is_refused() -> None:
    response = Client().generic("POST", SUBMISSIONS, b"", HTTP_TRANSFER_ENCODING="chunked",
                                **{"wsgi.input": UnreadableBody()})
    assert response.status_code == 411 and "Content-Length" in response.json()["detail"]


def test_a_body_within_the_limit_reaches_the_view(settings) -> None:
    settings.SOLARENA_MAX_REQUEST_BYTES = 1000
    assert Client().post("/accounts/login/", {"username": "x", "password": "y"}).status_code == 200
    assert Client().post("/accounts/login/", {"username": "x" * 1000, "password": "y"}).status_code == 413
