"""The web image (docker/web.Dockerfile, built by scripts/docker-images) starts with production
settings on the host's network and answers /livez and /healthz against the PostgreSQL and Redis
of this host, as a health probe would."""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.sandbox.backends import require

WEB_IMAGE = os.environ.get("SOLARENA_WEB_IMAGE", "solarena-web:latest")
START_SECONDS = 60
# The server the tests use, its maintenance database: /healthz asks only that it answers.
SERVER = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/solarena").rsplit("/", 1)[0]
DATABASE_URL = f"{SERVER}/postgres"
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    """The image's own command and settings, bound to a free port on loopback; its address."""
    require("docker")
    import docker

    client = docker.from_env()
    try:
        client.images.get(WEB_IMAGE)
    except docker.errors.ImageNotFound:
        if os.environ.get("SOLARENA_REQUIRE_DOCKER") == "1":
            pytest.fail(f"the web image {WEB_IMAGE} is not built (scripts/docker-images web)")
        pytest.skip(f"the web image {WEB_IMAGE} is not built; run scripts/docker-images web")
    port = free_port()
    environment = {"SECRET_KEY": secrets.token_urlsafe(50),
                   "SOLARENA_HIDDEN_SECRET": secrets.token_urlsafe(32), "ALLOWED_HOSTS": "127.0.0.1",
                   "DATABASE_URL": DATABASE_URL,
                   "CELERY_BROKER_URL": BROKER_URL, "WEB_CONCURRENCY": "1"}
    # The image's CMD binds 0.0.0.0:8000; the test binds loopback, on a port of its own.
    container = client.containers.run(WEB_IMAGE, ["gunicorn", "solarena.wsgi:application",
                                                  "--bind", f"127.0.0.1:{port}"],
                                      environment=environment, network_mode="host", detach=True,
                                      labels={"solarena": "test-web"})
    address = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            container.reload()
            assert container.status == "running", container.logs().decode()[-3000:]
            try:
                get(f"{address}/livez")
                break
            except OSError:
                assert time.monotonic() < deadline, container.logs().decode()[-3000:]
                time.sleep(0.5)
        yield address
    finally:
        container.remove(force=True)


def test_livez(web: str) -> None:
    assert get(f"{web}/livez") == (200, {"status": "ok"})


def test_healthz_reaches_the_database_and_the_broker_on_loopback(web: str) -> None:
    status, body = get(f"{web}/healthz")
    assert status == 200, body
    assert body["checks"] == {"database": "ok", "broker": "ok"}
