"""Class 6, batching across calls: precomputing the outputs of calls still to come (from the
seeds a batched request hands the solution's process) or recomputing only every fourth call must
never be scored: each call is timed and checked on its own, with inputs it cannot see coming."""

from __future__ import annotations

from pathlib import Path

from tests.anticheat.conftest import (
    BATCHED,
    MANY_CALLS,
    assert_cheated_workloads_never_score,
    assert_never_scores,
    evaluate_cheat,
)


def test_outputs_computed_ahead_from_the_batch_seeds_are_never_scored(tmp_path: Path) -> None:
    assert_cheated_workloads_never_score(evaluate_cheat(tmp_path, "batch_future_seeds", options=BATCHED))


def test_returning_the_previous_output_on_most_calls_never_scores(tmp_path: Path) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, "stale_output", options=MANY_CALLS))
