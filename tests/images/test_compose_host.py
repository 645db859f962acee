"""The whole platform from its images, as Compose runs it (docker-compose.yml with
docker-compose.host.yml): migrate, then web, sweeper and the CPU worker on the host's network with
this host's PostgreSQL and Redis; one submission through the API is evaluated by the worker in a
container of the evaluator image (the docker sandbox) and scored.

Opt-in (a few minutes): SOLARENA_COMPOSE_TEST=1, with the images built (scripts/docker-images)
and Compose installed (`docker compose` or `docker-compose`)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.images.test_web_image import WEB_IMAGE, free_port
from tests.sandbox.backends import DOCKER_IMAGE, require

pytestmark = pytest.mark.skipif(os.environ.get("SOLARENA_COMPOSE_TEST") != "1",
                                reason="opt-in: SOLARENA_COMPOSE_TEST=1 (a few minutes)")

ADMIN_URL = os.environ.get("SOLARENA_COMPOSE_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS = "redis://127.0.0.1:6379"
BROKER_DB, CACHE_DB = 9, 10
JOBS = Path("/var/lib/solarena/jobs")
SCORE_SECONDS = 900
SOLUTION = ROOT / "problems" / "softmax" / "solutions" / "triton.py"
MAKE_TOKEN = ("from django.contrib.auth import get_user_model; from accounts.services import create_token; "
              "user = get_user_model().objects.create_user('e2e', password='unused-e2e-password'); "
              "print('TOKEN=' + create_token(user, 'e2e')[1])")


def compose_command() -> list[str]:
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"],
                                                 capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.skip("Compose is not installed (docker compose or docker-compose)")


def flush_redis(db: int) -> None:
    import redis

    redis.Redis.from_url(f"{REDIS}/{db}").flushdb()


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh database of the host's PostgreSQL, dropped afterwards."""
    import psycopg

    name = f"solarena_compose_{os.getpid()}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Compose:
    def __init__(self, env: dict[str, str]) -> None:
        self.command, self.env = compose_command(), env

    def __call__(self, *args: str, timeout: float = 600) -> str:
        result = subprocess.run([*self.command, *args], cwd=ROOT, env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        assert result.returncode == 0, (
            f"compose {' '.join(args)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result.stdout

    def logs(self) -> str:
        return subprocess.run([*self.command, "logs", "--no-color", "--tail", "60"], cwd=ROOT, env=self.env,
                              capture_output=True, text=True).stdout[-6000:]


@pytest.fixture
def platform(database: str) -> Iterator[tuple[Compose, str]]:
    """Compose's services up on the host's network; the web address."""
    require("docker")
    JOBS.mkdir(parents=True, exist_ok=True)
    for db in (BROKER_DB, CACHE_DB):
        flush_redis(db)
    bind = f"127.0.0.1:{free_port()}"
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"),
           "COMPOSE_FILE": "docker-compose.yml:docker-compose.host.yml",
           "COMPOSE_PROJECT_NAME": f"solarena-e2e-{os.getpid()}",
           "SECRET_KEY": secrets.token_urlsafe(50), "SOLARENA_HIDDEN_SECRET": secrets.token_urlsafe(32),
           "SOLARENA_HOST": "localhost", "POSTGRES_PASSWORD": "unused", "DATABASE_URL": database,
           "CELERY_BROKER_URL": f"{REDIS}/{BROKER_DB}", "CACHE_URL": f"{REDIS}/{CACHE_DB}",
           "SOLARENA_WEB_BIND": bind, "SOLARENA_WEB_IMAGE": WEB_IMAGE, "SOLARENA_DOCKER_IMAGE": DOCKER_IMAGE,
           "SOLARENA_NODE": "e2e", "WEB_CONCURRENCY": "2"}
    compose = Compose(env)
    try:
        compose("run", "--rm", "--no-deps", "migrate")
        yield compose, f"http://{bind}"
    finally:
        compose("down", "--remove-orphans", "--volumes", "--timeout", "10")


def api(address: str, path: str, token: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The API as a TLS proxy in front would pass it on (X-Forwarded-Proto: https)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{address}{path}", data=data, headers={
        "Authorization": f"Bearer {token}", "Host": "localhost", "X-Forwarded-Proto": "https",
        "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def wait_for(address: str, compose: Compose, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            probe = urllib.request.Request(f"{address}/healthz", headers={"Host": "localhost"})
            with urllib.request.urlopen(probe, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, compose.logs()
        time.sleep(1)


def test_one_submission_is_scored_end_to_end(platform: tuple[Compose, str]) -> None:
    compose, address = platform
    output = compose("run", "--rm", "--no-deps", "migrate", "python", "manage.py", "shell", "-c", MAKE_TOKEN)
    token = next(line for line in output.splitlines() if line.startswith("TOKEN="))[6:]
    started = time.monotonic()
    compose("up", "-d", "--no-deps", "web-host", "sweeper", "worker-cpu")
    wait_for(address, compose)
    submission = api(address, "/api/v1/submissions/", token, {
        "problem": "softmax", "hardware": ["cpu"], "language": "triton",
        "sources": {"main.py": SOLUTION.read_text()}, "entry": "main.py"})
    deadline = time.monotonic() + SCORE_SECONDS
    while True:
        [evaluation] = api(address, f"/api/v1/submissions/{submission['id']}/", token)["evaluations"]
        if evaluation["state"] not in ("queued", "running"):
            break
        assert time.monotonic() < deadline, compose.logs()
        time.sleep(2)
    assert evaluation["state"] == "scored", f"{evaluation}\n{compose.logs()}"
    assert evaluation["score"] and evaluation["score"] > 0, evaluation
    seconds = time.monotonic() - started
    print(f"compose end to end: scored in {seconds:.0f} s (score {evaluation['score']:.3g})")
