"""Usernames are NFKC-normalised at sign-up, and a name that looks like an existing one (another
case, or Cyrillic or Greek letters drawn like Latin ones) is refused with the name it resembles."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.usernames import skeleton
from tests.platform import factories

pytestmark = pytest.mark.django_db
PASSWORD = "an-unusual-pass-phrase-7"


def sign_up(client: Client, username: str) -> int:
    response = client.post(reverse("signup"), {"username": username, "password1": PASSWORD,
                                               "password2": PASSWORD})
    return response.status_code


@pytest.mark.parametrize("forged", [
    "\u0430dmin",           # Cyrillic а
    "\u0410DMIN",           # Cyrillic А
    "\u0251dm\u0456n",      # Latin alpha, Cyrillic і
    "\u03b1dm\u03b9n",      # Greek α, ι
    "\u0391DMIN",           # Greek Α
    "\uff41\uff44\uff4d\uff49\uff4e",  # full-width letters, NFKC's to fold
])
def test_look_alikes_of_an_existing_name_are_refused(client: Client, forged: str) -> None:
    factories.make_user("admin")
    response = client.post(reverse("signup"), {"username": forged, "password1": PASSWORD,
                                               "password2": PASSWORD})
    assert response.status_code == 200
    page = response.content.decode()
    assert "looks the same as the existing user “admin”" in page or "already exists" in page
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["admin"]


def test_names_are_stored_nfkc_normalised(client: Client) -> None:
    assert sign_up(client, "\uff47race") == 302  # full-width g
    assert get_user_model().objects.filter(username="grace").exists()


def test_different_names_are_accepted(client: Client) -> None:
    factories.make_user("admin")
    assert sign_up(client, "admins") == 302
    assert sign_up(client, "\u0444\u0451\u0434\u043e\u0440") == 302  # Фёдор: Cyrillic, not a look-alike


def test_the_skeleton_maps_case_and_script() -> None:
    assert skeleton("\u0420\u0430\u0443\u0440\u0430l") == skeleton("PayPal") == "paypal"
    assert skeleton("aIice") == skeleton("alice") == skeleton("a1ice") and skeleton("b0b") == "bob"
    assert skeleton("\u039d\u0391\u03a4\u039f") == "nato" and skeleton("\u03bd") == "v"


@pytest.mark.parametrize(("forged", "existing"), [
    ("aIice", "alice"),      # capital I for l
    ("b0b", "bob"),          # zero for o
    ("b\u0585b", "bob"),     # Armenian o
    ("alice.", "alice"),     # a trailing dot
])
def test_the_issue_37_look_alikes_are_refused(client: Client, forged: str, existing: str) -> None:
    factories.make_user("alice")
    factories.make_user("bob")
    response = client.post(reverse("signup"), {"username": forged, "password1": PASSWORD,
                                               "password2": PASSWORD})
    assert response.status_code == 200
    assert f"looks the same as the existing user “{existing}”" in response.content.decode()
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["alice", "bob"]


def test_an_honest_new_name_beside_them_is_accepted(client: Client) -> None:
    factories.make_user("alice")
    factories.make_user("bob")
    assert sign_up(client, "alicia") == 302
    assert sign_up(client, "bobby.k") == 302
