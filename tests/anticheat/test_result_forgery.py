"""Class 1, result forgery: a forged "PASSED" result written to stdout, to sys.__stdout__, to
every open descriptor, to any results file within reach, or printed just before exiting is never
believed. Where it reaches the harness's own channel it is named (REWARD_HACK); where it goes
nowhere (the solution's stdout is not the channel) the wrong answer simply fails. Every forging
kernel is wrong on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.anticheat.conftest import assert_never_scores, assert_reward_hack, evaluate_cheat

FORGERIES = ["forge_stdout", "forge_dunder_stdout", "forge_all_fds", "forge_results_file", "forge_then_exit"]
# What these write reaches no channel the harness reads: they are only wrong kernels.
NOWHERE = {"forge_stdout", "forge_dunder_stdout", "forge_results_file", "forge_then_exit"}
# Scribbling on every descriptor can wedge the run; a wedged run must end quickly, not pass.
LIMITS: dict[str, dict[str, Any]] = {
    "forge_all_fds": {"workload_seconds": 8.0, "supervise": {"total_seconds": 30.0}},
}


@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_result_is_caught_and_named(tmp_path: Path, name: str) -> None:
    run = evaluate_cheat(tmp_path, name, **LIMITS.get(name, {}))
    if name in NOWHERE:
        assert_never_scores(run)
    else:
        assert_reward_hack(run, "forg", "channel", "tamper", "result")
