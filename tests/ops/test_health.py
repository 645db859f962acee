"""/livez answers while the process lives; /healthz is 200 while the database and the broker answer
and 503 naming the part that does not."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.ops.support import BROKER_URL, base_env, manage

CLOSED_PORT = 1  # nothing listens there: connections are refused at once


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="localhost")


def test_livez_consults_nothing(client: Client) -> None:
    response = client.get("/livez")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthy_when_database_and_broker_answer(client: Client, settings) -> None:
    settings.CELERY_BROKER_URL = BROKER_URL
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "failing": [],
                               "checks": {"database": "ok", "broker": "ok"}}


@pytest.mark.django_db
def test_a_broker_that_refuses_is_named(client: Client, settings) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{CLOSED_PORT}/14"
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing" and body["failing"] == ["broker"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("unreachable (")
    assert "127.0.0.1" not in json.dumps(body)  # addresses go to the log, not to the public


def test_a_database_that_refuses_is_named() -> None:
    """A process whose database is down (a real connection refused) still answers /healthz."""
    probe = ("from django.test import Client; r = Client(HTTP_HOST='localhost').get('/healthz'); "
             "print(r.status_code, r.content.decode())")
    env = base_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{CLOSED_PORT}/solarena")
    result = manage("shell", "-c", probe, env=env)
    assert result.returncode == 0, result.stderr
    status, _, body = result.stdout.strip().splitlines()[-1].partition(" ")
    assert status == "503"
    assert json.loads(body)["failing"] == ["database"]
    assert json.loads(body)["checks"]["broker"] == "ok"


def test_probes_answer_only_get(client: Client) -> None:
    assert client.post("/livez").status_code == 405
    assert client.post("/healthz").status_code == 405
