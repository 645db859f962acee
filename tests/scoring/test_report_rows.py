"""Raw harness measurements become scored rows on the trusted side (evaluator/scoring/report.py)."""

from __future__ import annotations

import pytest

from evaluator.harness.problem import Problem
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import scored_workload

H200 = get_hardware("h200")


def _row(problem: Problem, **raw: object) -> dict:
    workload = problem.workloads[0]  # rows=1024, cols=4096: 2*1024*4096 FLOPs, 4*(2*1024*4096+4096) bytes
    return scored_workload(problem.definition, workload, {"status": "PASSED", **raw}, H200)


def test_sol_bound_comes_from_the_definition(scale_shift: Problem) -> None:
    row = _row(scale_shift, latency_ms=1.0, baseline_latency_ms=2.0, reference_latency_ms=4.0)
    assert row["bytes"] == 4 * (2 * 1024 * 4096 + 4096)
    assert row["flops"] == 2 * 1024 * 4096
    # memory-bound: 33570816 bytes / 4.8e12 B/s = 6.994e-3 ms
    assert row["sol_ms"] == pytest.approx(33570816 / 4.8e12 * 1e3, rel=1e-3)


def test_score_and_speedup(scale_shift: Problem) -> None:
    row = _row(scale_shift, latency_ms=1.0, baseline_latency_ms=2.0, reference_latency_ms=4.0)
    sol = row["sol_ms"]
    assert row["score"] == pytest.approx(1 / (1 + (1.0 - sol) / (2.0 - sol)))
    assert row["speedup_vs_reference"] == pytest.approx(4.0)


def test_a_failed_baseline_leaves_the_reference_as_the_bar(scale_shift: Problem) -> None:
    row = _row(scale_shift, latency_ms=1.0, reference_latency_ms=4.0, baseline_error="boom")
    sol = row["sol_ms"]
    assert row["score"] == pytest.approx(1 / (1 + (1.0 - sol) / (4.0 - sol)))
    assert row["baseline_error"] == "boom"


def test_failed_workloads_score_zero(scale_shift: Problem) -> None:
    workload = scale_shift.workloads[0]
    row = scored_workload(scale_shift.definition, workload,
                          {"status": "INCORRECT_NUMERICAL", "message": "wrong"}, H200)
    assert row["score"] == 0.0
    assert row["message"] == "wrong"
    assert row["latency_ms"] is None


def test_time_below_the_sol_bound_is_flagged_not_rewarded(scale_shift: Problem) -> None:
    row = _row(scale_shift, latency_ms=1e-4, baseline_latency_ms=2.0, reference_latency_ms=4.0)
    assert row["below_sol"] is True
    assert row["score"] == 0.0
    assert row["message"]


def test_a_time_of_zero_is_flagged_not_rewarded(scale_shift: Problem) -> None:
    """A call the outside clock could not tell from the harness's overhead (a busy CPU host)."""
    row = _row(scale_shift, latency_ms=0.0, baseline_latency_ms=2.0, reference_latency_ms=4.0)
    assert row["score"] == 0.0
    assert row["below_sol"] is True
    assert "0 ms" in row["message"]
    assert row["speedup_vs_reference"] is None
