"""The cage of each sandboxed backend (bubblewrap, docker): no network, a read-only system, only
the job directory writable, a private /tmp, no inherited secrets, and the whole tree killed at the
wall-clock limit."""

from __future__ import annotations

import os
import time
from pathlib import Path

from evaluator.harness import status
from sandbox import Limits, get_backend
from tests.conftest import ROOT, evaluate_source
from tests.sandbox.backends import python_for

PROBE = """
import os, socket, sys
checks = {}
s = socket.socket()
s.settimeout(2)
checks["network"] = s.connect_ex(("127.0.0.1", 5432)) != 0
try:
    open(os.path.join(sys.argv[1], "escape.txt"), "w")
    checks["read_only_project"] = False
except OSError:
    checks["read_only_project"] = True
with open(os.path.join(sys.argv[2], "inside.txt"), "w") as fh:
    fh.write("ok")
checks["job_dir_writable"] = True
try:
    open("planted.py", "w")
    checks["read_only_working_directory"] = False
except OSError:
    checks["read_only_working_directory"] = True
checks["private_tmp"] = not os.path.exists("/tmp/solarena-outside-marker")
checks["no_secrets"] = not any(k in os.environ for k in ("DATABASE_URL", "SECRET_KEY", "CELERY_BROKER_URL"))
checks["own_pids"] = len([p for p in os.listdir("/proc") if p.isdigit()]) < 10
print(checks)
sys.exit(0 if all(checks.values()) else 3)
"""


def test_the_cage(tmp_path: Path, sandbox_backend: str) -> None:
    job = tmp_path / "job"
    job.mkdir()
    (Path("/tmp") / "solarena-outside-marker").write_text("visible outside only")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    os.environ.setdefault("SECRET_KEY", "must-not-leak")
    result = get_backend(sandbox_backend).run([python_for(sandbox_backend), "-c", PROBE, str(ROOT), str(job)],
                                              job, Limits(wall_seconds=60), env)
    assert result.ok, (result.stdout, result.stderr)
    assert (job / "inside.txt").read_text() == "ok"
    assert not (ROOT / "escape.txt").exists()


def test_wall_clock_limit_kills_the_whole_tree(tmp_path: Path, sandbox_backend: str) -> None:
    job = tmp_path / "job"
    job.mkdir()
    marker = job / "still-running"
    (job / "child.py").write_text(
        "import time\n"
        "while True:\n"
        f"    open({str(marker)!r}, 'w').write(str(time.time()))\n"
        "    time.sleep(0.2)\n"
    )
    (job / "parent.py").write_text(
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, {str(job / 'child.py')!r}])\n"
        "time.sleep(600)\n"
    )
    started = time.monotonic()
    result = get_backend(sandbox_backend).run([python_for(sandbox_backend), str(job / "parent.py")], job,
                                              Limits(wall_seconds=3), {"PATH": "/usr/bin:/bin"})
    assert result.ended_by == "timeout", result.stderr
    assert marker.exists(), "the child never ran"
    assert time.monotonic() - started < 15
    time.sleep(1)
    last = marker.stat().st_mtime
    time.sleep(1.5)
    assert marker.stat().st_mtime == last, "a child of the sandboxed process outlived the limit"


def test_harness_runs_inside_the_sandbox(tmp_path: Path, sandbox_backend: str) -> None:
    source = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
    evaluated = evaluate_source(tmp_path, source, backend=sandbox_backend)
    assert set(evaluated.statuses.values()) == {status.PASSED}


def test_a_solution_cannot_reach_the_network(tmp_path: Path, sandbox_backend: str) -> None:
    source = (
        "import socket\n\n"
        "def run(x, bias):\n"
        "    socket.create_connection(('127.0.0.1', 5432), timeout=2)\n"
        "    return x * 2.0 + bias[None, :]\n"
    )
    evaluated = evaluate_source(tmp_path, source, backend=sandbox_backend)
    assert set(evaluated.statuses.values()) == {status.RUNTIME_ERROR}
    assert any(word in next(iter(evaluated.outcome.results.values()))["message"]
               for word in ("refused", "unreachable", "Errno"))


def test_an_interpreter_in_bin_does_not_bind_the_whole_host(tmp_path: Path) -> None:
    from sandbox.bubblewrap_backend import BubblewrapBackend

    command = BubblewrapBackend().command(["/bin/sh", "-c", "true"], tmp_path, {})
    binds = [command[i + 1] for i, word in enumerate(command) if word in ("--ro-bind", "--bind")]
    assert "/" not in binds and "/usr" in binds
