"""Class 10, predictable inputs: a kernel right only on the published shapes must fail every
hidden workload, and the gap must show in the report; inputs regenerated from guessed seeds must
never match the run's."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import assert_never_scores, assert_not_broken, evaluate_cheat


def test_hard_coding_the_published_shapes_fails_the_hidden_workloads(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "visible_shapes_only")
    assert_not_broken(run)
    hidden = [r for r in run.rows if r["visibility"] == "hidden"]
    assert hidden, "the run had no hidden workloads"
    assert all(r["status"] != status.PASSED and r["score"] == 0 for r in hidden), run.describe()
    aggregates = run.report["aggregates"]
    assert aggregates["hidden_score"] == 0
    assert aggregates["generalization_gap"] is not None and aggregates["generalization_gap"] > 0


def test_inputs_regenerated_from_guessed_seeds_never_match(tmp_path: Path) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, "guessed_seeds"))
