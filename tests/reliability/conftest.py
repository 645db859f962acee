"""Fixtures of the fault tests: one private PostgreSQL cluster per test session (its database
migrated once, emptied before each test) and one private Redis server per test, so a test can stop
and start either without touching the machine's shared servers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from leaderboard.models import Hardware, Problem
from tests.celery_broker import celery_on
from tests.conftest import ROOT
from tests.platform import factories
from tests.reliability.servers import PostgresServer, RedisServer, postgres_bin
from tests.reliability.stack import Stack, orm_on

DATABASE = "solarena"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bindir = postgres_bin()
    if bindir is None or not shutil.which("redis-server"):
        # The test command needs both anyway (scripts/services); a missing one must not pass as a skip.
        pytest.fail("the fault tests start their own PostgreSQL and Redis servers: install both "
                    "(postgresql and redis-server)")
    server = PostgresServer(bindir)
    try:
        server.start()
        server.create_database(DATABASE)
        migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT,
                                 env={**os.environ, "DATABASE_URL": server.url(DATABASE)},
                                 capture_output=True, text=True)
        assert migrate.returncode == 0, migrate.stdout + migrate.stderr
        yield server
    finally:
        server.remove()


@pytest.fixture
def stack(postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          django_db_blocker: Any) -> Iterator[Stack]:
    if not postgres.running():  # a failed restart test may have left it stopped
        postgres.start()
    redis = RedisServer(tmp_path)
    redis.start()
    stack = Stack(postgres, redis, postgres.url(DATABASE), tmp_path)
    try:
        with django_db_blocker.unblock(), orm_on(stack.database_url), celery_on(redis.url(), monkeypatch):
            call_command("flush", interactive=False, verbosity=0)
            yield stack
            stack.stop_all()
    finally:
        stack.stop_all()
        redis.stop()


@pytest.fixture
def problem(stack: Stack) -> Problem:
    return factories.make_problem()


@pytest.fixture
def cpu(stack: Stack) -> Hardware:
    return factories.make_hardware("cpu")
