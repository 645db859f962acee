"""`manage.py start_gpu_workers` supervises its workers: one killed is started again (pinned to the
same GPU), and one that cannot start stops the supervisor with a message saying why."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.ops.support import base_env, database_url, inspect, kill_tree, wait_for
from tests.platform import test_worker_end_to_end as end_to_end

HOST = "ops-restart"
# No evaluation runs here; a queue of its own keeps these workers off test_gpu_pinning's hw.cpu
# messages when the two run at once on one broker database.
HARDWARE = "h100"


def start(tmp_path: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    env = {k: v for k, v in env.items() if k != "CUDA_VISIBLE_DEVICES"}
    log = tmp_path / "supervisor.log"
    argv = [sys.executable, "manage.py", "start_gpu_workers", "--hardware", HARDWARE, "--hostname", HOST,
            *extra]
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                      start_new_session=True)
    return process, log


@pytest.mark.django_db(transaction=True)
def test_a_killed_worker_is_started_again_on_its_gpu(tmp_path: Path) -> None:
    names = [f"gpu0@{HOST}", f"gpu1@{HOST}"]
    env = base_env(DATABASE_URL=database_url(), **end_to_end.sandbox_env())
    supervisor, log = start(tmp_path, env, "--gpus", "0,1", "--start-grace", "1")
    try:
        def pinned() -> dict[str, dict]:
            return inspect("pinned_device", names, timeout=1)

        wait_for(lambda: len(pinned()) == 2, "answer from both workers", log, supervisor)
        before = pinned()[names[1]]
        started = re.search(rf"started {re.escape(names[1])} \(pid (\d+)\)", log.read_text())
        assert started and int(started[1]) == before["pid"]
        os.kill(before["pid"], signal.SIGKILL)
        wait_for(lambda: names[1] in pinned() and pinned()[names[1]]["pid"] != before["pid"],
                 "restarted worker", log, supervisor)
        after = pinned()[names[1]]
        assert after["CUDA_VISIBLE_DEVICES"] == "1"
        assert f"{names[1]} exited with code -9; starting it again" in log.read_text()
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(60) == 0, log.read_text()
    finally:
        kill_tree(supervisor)


def test_a_worker_that_cannot_start_stops_the_supervisor(tmp_path: Path) -> None:
    env = base_env(SOLARENA_SANDBOX="none", SOLARENA_TRUSTED_WORKER="0")
    supervisor, log = start(tmp_path, env, "--gpus", "0")
    try:
        code = supervisor.wait(120)
    finally:
        kill_tree(supervisor)
    output = log.read_text()
    assert code != 0, output
    assert f"gpu0@{HOST} exited with code" in output and "at its start" in output
    assert "this worker will not start" in output and "SOLARENA_SANDBOX is none" in output
