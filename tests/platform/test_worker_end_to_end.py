"""A real Celery worker on a real Redis broker takes a submission from queued to scored."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.db import connection

from evaluator.models import Evaluation
from leaderboard.models import LeaderboardEntry
from submissions.services import create_submission
from tests.celery_broker import celery_on
from tests.conftest import ROOT
from tests.platform import factories

DEADLINE_SECONDS = 60


def broker_url() -> str:
    """One Redis database per xdist process, so parallel runs never share a queue."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return f"redis://127.0.0.1:6379/{10 + int(worker.removeprefix('gw') or 0)}"


def database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def sandbox_env() -> dict[str, str]:
    """Bubblewrap where it is installed; else no sandbox, which the worker accepts only when trusted
    (it runs nothing but this test's own submission)."""
    if shutil.which("bwrap"):
        return {"SOLARENA_SANDBOX": "bubblewrap"}
    return {"SOLARENA_SANDBOX": "none", "SOLARENA_TRUSTED_WORKER": "1"}


@contextmanager
def celery_worker(url: str, log: Path, sandbox: dict[str, str] | None = None,
                  ) -> Iterator[subprocess.Popen[bytes]]:
    """A Celery worker of the CPU queue in its own process; `sandbox`: its sandbox settings
    (sandbox_env() when not given)."""
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": url,
           "DJANGO_SETTINGS_MODULE": "solarena.settings", **(sandbox or sandbox_env())}
    argv = [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", "hw.cpu",
            "-P", "solo", "-c", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
            "--without-heartbeat"]
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def broker(settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = broker_url()
    redis.Redis.from_url(url).flushdb()
    settings.CELERY_BROKER_URL = url
    with celery_on(url, monkeypatch):
        yield url


@pytest.mark.django_db(transaction=True)
def test_a_worker_scores_a_submission(broker: str, tmp_path: Path) -> None:
    cpu, problem = factories.make_hardware("cpu"), factories.make_problem()
    with celery_worker(broker, tmp_path / "worker.log") as worker:
        submission = create_submission(factories.make_user(), problem, factories.solution(),
                                       "python", [cpu])
        evaluation = submission.evaluations.get()
        seen = [evaluation.state]
        deadline = time.monotonic() + DEADLINE_SECONDS
        while evaluation.state not in Evaluation.TERMINAL and time.monotonic() < deadline:
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.05)
            evaluation.refresh_from_db()
            if evaluation.state != seen[-1]:
                seen.append(evaluation.state)
    log = (tmp_path / "worker.log").read_text()
    assert evaluation.state == Evaluation.SCORED, f"{seen} {evaluation.error}\n{log[-3000:]}"
    assert seen[0] == Evaluation.QUEUED and seen[-1] == Evaluation.SCORED
    assert Evaluation.RUNNING in seen or evaluation.started_at is not None
    assert evaluation.attempts == 1 and evaluation.started_at <= evaluation.finished_at
    workloads = problem.workloads.filter(smoke=True)
    assert evaluation.results.count() == workloads.count()
    assert set(evaluation.results.values_list("status", flat=True)) == {"PASSED"}
    entry = LeaderboardEntry.objects.get(problem=problem, hardware=cpu)
    assert entry.evaluation == evaluation and entry.score == evaluation.score > 0
