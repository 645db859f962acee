"""Class 20, inflated calibration: the fixed costs the harness takes out of every call it clocks
(its own messages, its window, the copy of the outputs) are measured on the harness's own null
problem before the solution is imported, so stalling the replies of a loaded solution erases
nothing. The cheat's calls really take 20 ms; its time must say so, or the cheat be caught."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import MANY_CALLS, assert_not_broken, evaluate_cheat, is_reward_hack

HONEST_MS = 20.0  # what each call of the cheat sleeps


def test_stalled_replies_erase_no_time(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "stall_floor_pings", options=MANY_CALLS)
    assert_not_broken(run)
    if is_reward_hack(run):
        return
    for row in run.rows:
        assert row["status"] == status.PASSED, run.describe()
        assert row["latency_ms"] >= 0.75 * HONEST_MS, run.describe()
