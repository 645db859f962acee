"""benchmarks/score_noise.py's shared-yardstick scores: every run scored against one baseline time
per workload (the median over the runs), as ranked evaluations on the server are, so two runs that
differ only in their own baseline timing score alike, and a workload that did not pass counts 0."""

from __future__ import annotations

from types import ModuleType

import pytest

from evaluator.scoring.score import workload_score
from tests.benchmarks import scripts


@pytest.fixture(scope="module")
def score_noise() -> ModuleType:
    return scripts.load("score_noise")


def run(baseline_ms: float, kernel_ms: float = 2.0, status: str = "PASSED") -> dict:
    rows = [{"uuid": "a", "status": status, "latency_ms": kernel_ms, "baseline_latency_ms": baseline_ms,
             "sol_ms": 1.0},
            {"uuid": "b", "status": "PASSED", "latency_ms": 3.0, "baseline_latency_ms": 4.0, "sol_ms": 1.0}]
    score = sum(workload_score(r["latency_ms"], r["baseline_latency_ms"], r["sol_ms"]).score
                for r in rows if r["status"] == "PASSED") / 2
    return {"hardware": "h200", "workloads": rows, "aggregates": {"score": score}}


def test_runs_apart_only_in_their_baselines_score_alike(score_noise: ModuleType) -> None:
    runs = [run(2.5), run(3.5), run(5.0)]
    own = [r["aggregates"]["score"] for r in runs]
    assert score_noise.spread(own)["half_range_share"] > 0.05, "the own yardsticks move the score"
    shared = score_noise.shared_yardstick_scores(runs)
    expected = (workload_score(2.0, 3.5, 1.0).score + workload_score(3.0, 4.0, 1.0).score) / 2
    assert shared == pytest.approx([expected] * 3)
    assert score_noise.spread(shared)["half_range_share"] == 0


def test_the_solution_time_still_moves_the_score(score_noise: ModuleType) -> None:
    shared = score_noise.shared_yardstick_scores([run(3.0, kernel_ms=2.0), run(3.0, kernel_ms=2.2)])
    assert shared[0] > shared[1]


def test_a_workload_that_did_not_pass_counts_zero(score_noise: ModuleType) -> None:
    passed, failed = score_noise.shared_yardstick_scores([run(3.0), run(3.0, status="INCORRECT_NUMERICAL")])
    assert failed == pytest.approx(workload_score(3.0, 4.0, 1.0).score / 2)
    assert passed > failed
