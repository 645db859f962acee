"""Sign-up holds passwords to Django's four rules: long enough, not common, not all digits, not
like the username. Each refusal says why, beside the field."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def sign_up(client: Client, username: str, password: str) -> str:
    response = client.post(reverse("signup"), {"username": username, "password1": password,
                                               "password2": password})
    assert response.status_code == 200, "refused: the form is shown again"
    return response.content.decode()


@pytest.mark.parametrize(("password", "reason"), [
    ("1", "too short"),
    ("123", "too short"),
    ("password123", "too common"),
    ("8461937205", "entirely numeric"),
    ("katherine-johnson", "too similar to the username"),
])
def test_weak_passwords_are_refused(client: Client, password: str, reason: str) -> None:
    page = sign_up(client, "katherine-johnson", password)
    assert reason in page
    assert not get_user_model().objects.filter(username="katherine-johnson").exists()


def test_a_good_password_is_accepted(client: Client) -> None:
    response = client.post(reverse("signup"), {"username": "dorothy", "password1": "vaughan-fortran-1961",
                                               "password2": "vaughan-fortran-1961"})
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="dorothy").exists()
