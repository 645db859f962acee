"""A worker runs submitted code only in a sandbox, unless it is declared trusted: it refuses to start
otherwise, saying what to set, and an evaluation handed to such a worker anyway fails without
running. The sandbox and the limits in the settings reach the supervisor."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any
from unittest import mock

import pytest

from evaluator import tasks
from evaluator.models import Evaluation
from evaluator.supervise import SuperviseOptions
from leaderboard.models import LeaderboardEntry
from tests.conftest import ROOT
from tests.platform import factories

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def test_a_real_worker_without_a_sandbox_refuses_to_start() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SOLARENA_TRUSTED_WORKER"}
    env.update(SOLARENA_SANDBOX="none", CELERY_BROKER_URL="memory://",
               DJANGO_SETTINGS_MODULE="solarena.settings")
    argv = [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", "hw.cpu",
            "-P", "solo", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    worker = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert worker.returncode != 0
    assert tasks.UNSANDBOXED in worker.stderr, worker.stderr[-3000:]


@pytest.mark.parametrize("backend", ["none", "subprocess"])
def test_the_worker_start_check_refuses_an_untrusted_worker_without_a_sandbox(
        settings: Any, backend: str) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = backend, False
    with pytest.raises(SystemExit) as refused:
        tasks.refuse_to_start_unsandboxed()
    assert "SOLARENA_SANDBOX=bubblewrap" in str(refused.value)
    assert "SOLARENA_TRUSTED_WORKER=1" in str(refused.value)


def test_a_trusted_worker_may_run_without_a_sandbox(settings: Any) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    tasks.refuse_to_start_unsandboxed()


@needs_bwrap
def test_a_bubblewrap_worker_starts_without_being_trusted(settings: Any) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "bubblewrap", False
    tasks.refuse_to_start_unsandboxed()


def test_an_unknown_sandbox_is_refused_by_name(settings: Any) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "chroot", True
    with pytest.raises(SystemExit, match="SOLARENA_SANDBOX=chroot cannot be used"):
        tasks.refuse_to_start_unsandboxed()


@pytest.mark.django_db
def test_an_evaluation_handed_to_an_untrusted_worker_fails_without_running(settings: Any) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", False
    evaluation = factories.make_evaluation()
    with mock.patch.object(tasks, "measure") as measure:
        tasks.evaluate(evaluation.pk)
    measure.assert_not_called()
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.FAILED
    assert evaluation.error == f"the evaluator refused to run it: {tasks.UNSANDBOXED}"
    assert not evaluation.results.exists() and not LeaderboardEntry.objects.exists()


@pytest.mark.django_db
def test_the_sandbox_and_limits_in_the_settings_reach_the_supervisor(settings: Any) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    settings.SOLARENA_EVAL_MEMORY_BYTES, settings.SOLARENA_EVAL_MAX_PROCESSES = 1 << 30, 12
    settings.SOLARENA_EVAL_MAX_OPEN_FILES, settings.SOLARENA_WORKLOAD_SECONDS = 256, 7
    settings.SOLARENA_EVAL_SECONDS = 90
    evaluation = factories.make_evaluation()
    seen: list[SuperviseOptions] = []

    def supervisor(job_dir: Any, uuids: list[str], options: SuperviseOptions, **_: Any) -> None:
        seen.append(options)
        raise RuntimeError("stopped after the options were seen")

    with mock.patch.object(tasks, "run_harness", supervisor):
        tasks.evaluate(evaluation.pk)
    (options,) = seen
    assert (options.backend, options.memory_bytes, options.max_processes, options.max_open_files,
            options.workload_seconds, options.total_seconds, options.cpu_interpreter) == (
        "none", 1 << 30, 12, 256, 7, 90, True)
