"""A test-mode run (evaluator/modes.py): the harness checks every workload's correctness and times
nothing, neither the solution nor the reference nor the baseline; a wrong answer still fails."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from evaluator.jobs import UNTIMED
from tests.conftest import evaluate_source

CORRECT = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
WRONG = "def run(x, bias):\n    return x * 3.0 + bias[None, :]\n"


def test_a_test_run_checks_and_times_nothing(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, CORRECT, options=UNTIMED)
    rows = evaluated.outcome.results.values()
    assert rows and {row["status"] for row in rows} == {status.PASSED}
    for row in rows:
        assert row["correctness"]["rounds"] >= 1
        assert not {"latency_ms", "timing", "reference_latency_ms", "baseline_latency_ms"} & set(row)


def test_a_wrong_answer_still_fails_untimed(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, WRONG, options=UNTIMED)
    assert set(evaluated.statuses.values()) == {status.INCORRECT_NUMERICAL}
