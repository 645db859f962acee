"""The home page lists recent evaluations, without JavaScript."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.django_db
def test_home_page_without_evaluations(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert b"No evaluations yet." in response.content
    assert b'http-equiv="refresh"' not in response.content
