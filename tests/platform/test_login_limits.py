"""Failed logins are limited per address and per account (django-axes), on the site's login and
the admin's alike, and sign-ups per address; the address is the one trusted proxies vouch for, so
a forged X-Forwarded-For lifts no limit. A locked login says so and for how long (429)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse

from tests.platform import factories

pytestmark = pytest.mark.django_db
PASSWORD = "an-unusual-pass-phrase-7"


@pytest.fixture(autouse=True)
def empty_counters() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def log_in(url: str, username: str, password: str, address: str = "203.0.113.1", **headers: str) -> int:
    return Client(REMOTE_ADDR=address, **headers).post(url, {"username": username,
                                                             "password": password}).status_code


def test_wrong_passwords_lock_the_address_and_the_account() -> None:
    factories.make_user("grace")  # password "x"
    answers = [log_in(reverse("login"), "grace", f"guess{n}") for n in range(settings.AXES_FAILURE_LIMIT)]
    assert answers[:-1] == [200] * (settings.AXES_FAILURE_LIMIT - 1) and answers[-1] == 429
    assert log_in(reverse("login"), "grace", "x") == 429, "the right password waits too"


@override_settings(AXES_FAILURE_LIMIT=3)
def test_an_address_is_locked_whatever_the_names_it_tries() -> None:
    factories.make_user("grace")
    assert [log_in(reverse("login"), f"user{n}", "guess") for n in range(3)] == [200, 200, 429]
    assert log_in(reverse("login"), "grace", "x") == 429
    assert log_in(reverse("login"), "grace", "x", address="203.0.113.2") == 302


@override_settings(AXES_FAILURE_LIMIT=3)
def test_an_account_is_locked_whatever_the_addresses_it_is_tried_from() -> None:
    factories.make_user("grace")
    answers = [log_in(reverse("login"), "grace", "guess", address=f"198.51.100.{n}") for n in range(3)]
    assert answers == [200, 200, 429]
    response = Client(REMOTE_ADDR="192.0.2.7").post(reverse("login"), {"username": "grace", "password": "x"})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode() and "15 minutes" in response.content.decode()


@override_settings(AXES_FAILURE_LIMIT=3)
def test_the_admin_login_is_limited_too() -> None:
    factories.make_user("ops")
    admin = reverse("admin:login")
    assert [log_in(admin, "ops", "guess") for _ in range(3)] == [200, 200, 429]


@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_forged_forwarded_for_does_not_lift_the_login_limit() -> None:
    answers = [log_in(reverse("login"), f"user{n}", "guess", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
               for n in range(3)]
    assert answers == [200, 200, 429]


@override_settings(SOLARENA_SIGNUP_RATE="2/hour")
def test_sign_ups_are_limited_per_address() -> None:
    def sign_up(name: str, address: str = "203.0.113.1", forged: str = "") -> Client:
        client = Client(REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR=forged or address)
        client.response = client.post(reverse("signup"), {"username": name, "password1": PASSWORD,
                                                          "password2": PASSWORD})
        return client

    assert [sign_up(f"new{n}", forged=f"198.51.100.{n}").response.status_code for n in range(2)] == [302, 302]
    refused = sign_up("new2", forged="198.51.100.9").response
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many sign-ups from your address" in refused.content.decode()
    assert sign_up("new3", address="203.0.113.2").response.status_code == 302
