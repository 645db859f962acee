"""Class 22, slowed baseline: processes forked by the solution spin on the cores whenever the
solution's own calls are not running, so the reference and the baseline, timed in between, look
slow. The reporter pauses every process of the solution's side while it times them, and any
process of the solution's alive while a call is on the clock is caught and named.

tests/harness/test_pausing.py shows the pause itself: a spinning process tree, orphans included,
gets no CPU time while paused."""

from __future__ import annotations

from pathlib import Path

from tests.anticheat.conftest import assert_reward_hack, evaluate_cheat


def test_spinning_neighbours_are_caught_and_named(tmp_path: Path) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, "busy_neighbours"), "process")
