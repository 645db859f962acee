"""Class 28, unpaused helpers: the solution's side cannot take over any other process of its
sandbox to work while it is paused. The reporter starts no helper of its own (no multiprocessing
resource tracker), is not dumpable, and the solution's process runs under the harness's seccomp
filter: ptrace, process_vm_readv/writev and pidfd_getfd are refused, and /proc shows none of the
reporter's memory, descriptors or environment. The whole side is frozen as a unit where the host
has cgroups (tests/sandbox/test_kernel_limits.py)."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import assert_not_broken, evaluate_cheat


def test_no_other_process_can_be_traced_read_or_written(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "trace_other_processes")
    traced = json.loads((tmp_path / "job" / "traced.json").read_text())
    assert traced, "the cheat saw no other process: the test proves nothing"
    reached = {pid: [name for name, outcome in attempts.items() if outcome == "ok"]
               for pid, attempts in traced.items()}
    assert not any(reached.values()), traced
    assert_not_broken(run)
    assert {r["status"] for r in run.rows} == {status.PASSED}, run.describe()
