"""Class 21, work before the clock: a call's inputs are drawn by the reporter and put in buffers
it shares with the solution's process while that process is paused, and the clock starts as it
is let go: a torch mode left on the stack at import, which used to see the harness make the
inputs and compute the answer before the call began, sees nothing, and is itself caught."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import MANY_CALLS, assert_not_broken, evaluate_cheat, is_reward_hack

HONEST_MS = 30.0  # what the cheat's "kernel" takes, wherever it runs


def test_an_answer_computed_before_the_clock_is_not_timed_as_free(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "precompute_in_input_hook", options=MANY_CALLS)
    assert_not_broken(run)
    if is_reward_hack(run):
        assert "mode" in " ".join(r["message"] for r in run.rows)
        return
    for row in run.rows:
        assert row["status"] == status.PASSED, run.describe()
        assert row["latency_ms"] >= 0.75 * HONEST_MS, run.describe()
