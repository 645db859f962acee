"""Class 7, phase detection: cheating after the first calls, on calls that come back to back, or
on calls whose stack looks like a timing loop must never be scored: timed calls are checked too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import (
    MANY_CALLS,
    assert_cheated_workloads_never_score,
    assert_never_scores,
    evaluate_cheat,
)


def test_cheating_after_the_first_calls_never_scores(tmp_path: Path) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, "count_calls", options=MANY_CALLS))


@pytest.mark.parametrize("name", ["warmup_gap", "stack_inspection"])
def test_calls_recognised_as_timed_are_checked_too(tmp_path: Path, name: str) -> None:
    assert_cheated_workloads_never_score(evaluate_cheat(tmp_path, name, options=MANY_CALLS))
