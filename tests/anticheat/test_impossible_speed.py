"""Class 15, impossible speed: one workload driven toward zero time (by replaying a cached output,
or by editing its timing sample down to 1e-9 ms) while every other workload is honest. The
workload it cheated on must score nothing, no time below the SOL bound may score, and no score
may exceed 1, so the problem's average cannot collapse toward the cheat."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.harness import status
from evaluator.scoring.score import is_below_sol
from tests.anticheat.conftest import MANY_CALLS, CheatRun, assert_not_broken, evaluate_cheat


def assert_no_impossible_time_scores(run: CheatRun) -> None:
    assert_not_broken(run)
    cheated = run.cheated_shapes()
    assert cheated, f"the cheat never cheated, so the test proves nothing:\n{run.describe()}"
    for row in run.rows:
        assert 0.0 <= row["score"] <= 1.0, run.describe()
        if row["latency_ms"] is not None and is_below_sol(row["latency_ms"], row["sol_ms"]):
            assert row["score"] == 0.0 and row["below_sol"], run.describe()
        if tuple(row["axes"].values()) in cheated:
            assert row["status"] != status.PASSED or row["below_sol"], run.describe()
            assert row["score"] == 0.0, run.describe()


@pytest.mark.parametrize("name", ["cached_small_workload", "zero_time_small_workload"])
def test_a_workload_driven_to_zero_time_scores_nothing(tmp_path: Path, name: str) -> None:
    assert_no_impossible_time_scores(evaluate_cheat(tmp_path, name, options=MANY_CALLS))
