"""Fixtures of the client command tests: a live test server (real HTTP through httpx to a server
thread) with a user and token, an empty config directory, and the commands called in-process
through solarena.cli.main."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from accounts.services import create_token
from evaluator import services as evaluator_services
from solarena.cli import main
from tests.cli.support import Result, Server
from tests.platform import factories


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv("SOLARENA_CONFIG_DIR", str(directory))
    for name in ("SOLARENA_SERVER", "SOLARENA_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return directory


@pytest.fixture
def server(live_server: Any, transactional_db: Any, config_dir: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setattr(evaluator_services, "send", lambda *args, **kwargs: None)  # no broker
    cache.clear()  # throttle counters
    user = factories.make_user("ada")
    _, secret = create_token(user, "cli tests")
    yield Server(live_server.url, secret, user, factories.make_problem(), factories.make_hardware("cpu"))
    cache.clear()


@pytest.fixture
def logged_in(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("SOLARENA_SERVER", server.url)
    monkeypatch.setenv("SOLARENA_TOKEN", server.token)
    return server


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
