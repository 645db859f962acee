"""Shared by the ops tests: a production environment for a subprocess of the app, and the Redis
database these tests use as their broker."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import connection

from tests.conftest import ROOT

BROKER_URL = os.environ.get("SOLARENA_OPS_TEST_BROKER", "redis://127.0.0.1:6379/14")
# Settings a test sets itself; what the caller's environment says about them is dropped.
OWN = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SOLARENA_HIDDEN_SECRET", "SECURE_SSL_REDIRECT",
       "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
       "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER", "SOLARENA_SERVE_STATIC",
       "SOLARENA_LOG_FORMAT", "SOLARENA_LOG_LEVEL", "SOLARENA_METRICS_TOKEN", "DJANGO_SETTINGS_MODULE")


def database_url() -> str:
    """The test database pytest-django made, for processes started by a test."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OWN}
    env["DJANGO_SETTINGS_MODULE"] = "solarena.settings"
    env["CELERY_BROKER_URL"] = BROKER_URL
    return {**env, **extra}


def production_env(**extra: str) -> dict[str, str]:
    """What docs/deploy.md asks of a production web process."""
    production = {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
                  "ALLOWED_HOSTS": "solarena.example.org",
                  "SOLARENA_HIDDEN_SECRET": secrets.token_urlsafe(24)}
    return base_env(**{**production, **extra})


def manage(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def inspect(command: str, names: list[str], timeout: float = 2) -> dict[str, Any]:
    """Ask the named workers `celery inspect <command>` over the ops tests' broker: {name: reply}.
    In a process of its own, because this one's Celery app is bound to the suite's broker (an app
    already set up replies over its own broker whatever connection a call is given)."""
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "solarena.celery", "--broker", BROKER_URL, "inspect",
         command, "-d", ",".join(names), "-t", str(timeout), "-j"],
        cwd=ROOT, env=base_env(), capture_output=True, text=True, timeout=60)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if result.returncode == 0 and lines else {}


def kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill a process started in a session of its own, with every child it left (its workers)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def wait_for(condition: Callable[[], object], what: str, log: Path, process: subprocess.Popen[bytes],
             seconds: float = 120) -> None:
    """Poll until condition() holds, failing with the process's log if it exits or time runs out."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, f"the process exited while waiting for {what}:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no {what} in {seconds:.0f} s:\n{log.read_text()[-4000:]}"
        time.sleep(0.2)
