"""Accounts: sign up, log in and out, a team name on the profile, and API tokens whose secret is
shown once, stored only as a hash, usable as a bearer token until revoked."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, Profile
from accounts.services import create_token as create_api_token
from tests.platform import factories

pytestmark = pytest.mark.django_db
SUBMISSIONS = "/api/v1/submissions/"


def create_token(client: Client, name: str = "laptop") -> str:
    """Create a token on the profile page and read its secret off the page."""
    response = client.post(reverse("create_token"), {"name": name})
    assert response.status_code == 200
    match = re.search(r'<code id="new-token-secret">([^<]+)</code>', response.content.decode())
    assert match, "the new secret is on the page"
    return match.group(1)


def test_sign_up_logs_in_and_creates_a_profile(client: Client) -> None:
    response = client.post(reverse("signup"), {"username": "ada", "password1": "a-long-pass-phrase-1",
                                               "password2": "a-long-pass-phrase-1"})
    assert response.status_code == 302 and response.url == reverse("profile")
    user = get_user_model().objects.get(username="ada")
    assert Profile.objects.filter(user=user).exists()
    page = client.get(reverse("profile"))
    assert page.status_code == 200 and b"ada" in page.content


def test_sign_up_shows_errors_beside_the_fields(client: Client) -> None:
    factories.make_user("taken")
    response = client.post(reverse("signup"), {"username": "taken", "password1": "a-long-pass-phrase-1",
                                               "password2": "something-else-2"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "already exists" in page and "didn’t match" in page
    assert page.count('class="error"') >= 2
    assert get_user_model().objects.filter(username="taken").count() == 1


def test_log_in_and_out(client: Client) -> None:
    factories.make_user("grace")
    response = client.post(reverse("login"), {"username": "grace", "password": "wrong"})
    assert response.status_code == 200 and b'class="error"' in response.content
    response = client.post(reverse("login"), {"username": "grace", "password": "x"})
    assert response.status_code == 302 and response.url == reverse("profile")
    assert client.get(reverse("profile")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    response = client.get(reverse("profile"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_profile_team_name(client: Client) -> None:
    user = factories.make_user()
    client.force_login(user)
    response = client.post(reverse("profile"), {"team": "Kernel <Crew>"})
    assert response.status_code == 302
    assert Profile.objects.get(user=user).team == "Kernel <Crew>"
    page = client.get(reverse("profile")).content.decode()
    assert "Kernel &lt;Crew&gt;" in page and "Kernel <Crew>" not in page


def test_token_secret_is_shown_once_and_stored_hashed(client: Client) -> None:
    user = factories.make_user()
    client.force_login(user)
    secret = create_token(client)
    token = ApiToken.objects.get(user=user, name="laptop")
    assert token.name == "laptop" and secret.startswith(token.prefix)
    assert token.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    stored = [str(value) for value in ApiToken.objects.filter(pk=token.pk).values().get().values()]
    assert not any(secret in value for value in stored)
    assert "no-store" in client.post(reverse("create_token"), {"name": "ci"})["Cache-Control"]
    later = client.get(reverse("profile")).content.decode()
    assert secret not in later and token.prefix in later


def test_a_token_without_a_name_is_refused_beside_the_field(client: Client) -> None:
    client.force_login(factories.make_user())
    response = client.post(reverse("create_token"), {"name": ""})
    assert response.status_code == 400 and b'class="error"' in response.content
    assert not ApiToken.objects.exists()


def test_token_signs_api_requests_until_revoked(client: Client) -> None:
    user = factories.make_user()
    client.force_login(user)
    secret = create_token(client)
    api = APIClient()
    assert api.get(SUBMISSIONS).status_code == 401
    response = api.get(SUBMISSIONS, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    assert ApiToken.objects.get(user=user).last_used is not None

    token = ApiToken.objects.get(user=user)
    assert client.post(reverse("revoke_token", args=[token.pk])).status_code == 302
    response = api.get(SUBMISSIONS, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_wrong_or_malformed_tokens_are_refused() -> None:
    api = APIClient()
    for header in ("Bearer sol_not-a-token", "Bearer", "Bearer two parts"):
        response = api.get(SUBMISSIONS, HTTP_AUTHORIZATION=header)
        assert response.status_code == 401, header


def test_nobody_revokes_another_users_token(client: Client) -> None:
    owner, other = factories.make_user(), factories.make_user()
    client.force_login(owner)
    create_token(client)
    token = ApiToken.objects.get(user=owner)
    client.force_login(other)
    client.post(reverse("revoke_token", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is None


def test_admin_lists_profiles_and_tokens_without_secrets(admin_client: Client) -> None:
    user = factories.make_user()
    _, secret = create_api_token(user, "laptop")
    for model in ("profile", "apitoken"):
        assert admin_client.get(reverse(f"admin:accounts_{model}_changelist")).status_code == 200
    token = ApiToken.objects.get(user=user)
    page = admin_client.get(reverse("admin:accounts_apitoken_change", args=[token.pk])).content.decode()
    assert token.prefix in page and secret not in page
