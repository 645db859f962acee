"""Class 29, disarmed guard: the integrity guard of the solution's process checks values, not
only names (its own reference among them, watched from a second place), so replacing it where
the executor keeps it is caught; and since code in a process can always rewrite that process,
no score depends on the guard: with every reference to it replaced, a forged report still
scores no faster than the reporter's own clock of the calls."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import (
    MANY_CALLS,
    CheatRun,
    assert_not_broken,
    assert_reward_hack,
    cheat_source,
    current_backend,
    evaluate_cheat,
    scored,
)
from tests.conftest import evaluate_source

WAIT_MS = 20.0  # each call of the cheats waits this long


def test_a_guard_replaced_where_the_executor_keeps_it_is_caught(tmp_path: Path) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, "disarm_guard", options=MANY_CALLS), "guard", "replaced")


def test_with_every_guard_replaced_the_score_still_follows_the_reporters_clock(tmp_path: Path) -> None:
    source = cheat_source("disarm_guard")
    assert "\nEVERYWHERE = False\n" in source
    evaluated = evaluate_source(tmp_path, source.replace("\nEVERYWHERE = False\n", "\nEVERYWHERE = True\n"),
                                options=MANY_CALLS, backend=current_backend())
    run: CheatRun = scored(evaluated, tmp_path / "job" / "solution", "cpu")
    assert_not_broken(run)
    assert run.rows, run.describe()
    for row in run.rows:
        if row["status"] == status.PASSED:
            assert row["latency_ms"] >= WAIT_MS, run.describe()
        else:
            assert row["status"] == status.REWARD_HACK, run.describe()
