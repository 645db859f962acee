"""Class 27, trusted-side services: nothing in the trusted reporter listens for the solution or
unpickles what it sends. The solution's process is a plain child that shares no key with the
reporter; its requests and replies are JSON on one socket pair, and its buffers are an
anonymous memory file or CUDA IPC handles, never pickled tensors (whose CPU sharing starts
multiprocessing's resource-sharing listener in the reporter)."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import assert_not_broken, evaluate_cheat


def test_no_listener_of_the_reporter_can_be_reached(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "reach_reporter_listener")
    job = tmp_path / "job"
    assert not (job / "TAKEN_OVER").exists(), (job / "TAKEN_OVER").read_text()
    found = json.loads((job / "listeners.json").read_text())
    assert found["listeners"] == [] and found["reached"] == [], found
    assert_not_broken(run)
    assert {r["status"] for r in run.rows} == {status.PASSED}, run.describe()
