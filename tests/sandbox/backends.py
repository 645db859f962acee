"""The sandbox backends that the sandbox and anti-cheat tests run under, with the same verdicts:
bubblewrap, and docker with the CPU evaluator image (scripts/docker-images builds it).

A backend this host cannot run is skipped with the reason; with SOLARENA_REQUIRE_DOCKER=1 (set by
scripts/test once it has an engine and the image) a missing docker backend fails instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Iterator

import pytest

DOCKER_IMAGE = os.environ.get("SOLARENA_DOCKER_TEST_IMAGE", "solarena-evaluator:cpu")
SANDBOXES = ("bubblewrap", "docker")
LABEL_FILTER = {"label": "solarena=evaluation"}


@functools.cache
def unavailable(backend: str) -> str | None:
    """Why `backend` cannot run here, or None."""
    if backend == "bubblewrap":
        return None if shutil.which("bwrap") else "bubblewrap is not installed (apt-get install bubblewrap)"
    try:
        import docker
    except ImportError:
        return "the docker Python package is not installed"
    try:
        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as exc:  # the engine's absence takes many shapes
        return f"no Docker engine is reachable ({exc.__class__.__name__}); scripts/docker-engine starts one"
    try:
        client.images.get(DOCKER_IMAGE)
    except docker.errors.ImageNotFound:
        return f"the evaluator image {DOCKER_IMAGE} is not built; run scripts/docker-images evaluator"
    return None


def require(backend: str) -> None:
    """Skips the test (fails it, for docker under SOLARENA_REQUIRE_DOCKER=1) where `backend`
    cannot run; `none` runs everywhere."""
    reason = None if backend == "none" else unavailable(backend)
    if reason is None:
        return
    if backend == "docker" and os.environ.get("SOLARENA_REQUIRE_DOCKER") == "1":
        pytest.fail(f"SOLARENA_REQUIRE_DOCKER=1 but {reason}")
    pytest.skip(reason)


def python_for(backend: str) -> str:
    """The interpreter a command in that sandbox is started with: the image's own under docker."""
    return "python" if backend == "docker" else sys.executable


def evaluation_containers() -> list[str]:
    """Names of the evaluation containers on this host (any state)."""
    if unavailable("docker"):
        return []
    import docker

    return [c.name for c in docker.from_env().containers.list(all=True, filters=LABEL_FILTER)]


@pytest.fixture(params=SANDBOXES)
def sandbox_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each sandboxed backend in turn, skipped (with the reason) where it cannot run."""
    backend: str = request.param
    require(backend)
    if backend == "docker":
        monkeypatch.setenv("SOLARENA_DOCKER_IMAGE", DOCKER_IMAGE)
    yield backend
