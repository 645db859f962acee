"""How sure a score is (evaluator/scoring/uncertainty.py): the timing noise of the kernel and of its
baseline, propagated through the SOL score; a mean's interval from its workloads' in quadrature;
both in the report as 95% half-widths."""

from __future__ import annotations

import math

import pytest

from evaluator.harness.problem import Problem
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import build_report
from evaluator.scoring.score import workload_score
from evaluator.scoring.uncertainty import Z95, ci95, mean_error, score_error
from evaluator.supervise import HarnessOutcome

KERNEL, BASELINE, SOL = 1.0, 3.0, 0.2


def test_the_error_is_the_first_order_propagation_of_both_timings() -> None:
    def score(kernel: float, baseline: float) -> float:
        return workload_score(kernel, baseline, SOL).score

    step = 1e-6
    d_kernel = (score(KERNEL + step, BASELINE) - score(KERNEL - step, BASELINE)) / (2 * step)
    d_baseline = (score(KERNEL, BASELINE + step) - score(KERNEL, BASELINE - step)) / (2 * step)
    expected = math.hypot(d_kernel * 0.01 * KERNEL, d_baseline * 0.02 * BASELINE)
    assert score_error(KERNEL, 0.01, BASELINE, 0.02, SOL) == pytest.approx(expected, rel=1e-6)
    assert score_error(KERNEL, 0.0, BASELINE, 0.0, SOL) == 0.0


def test_a_mean_adds_its_errors_in_quadrature() -> None:
    assert mean_error([0.03, 0.04], 2) == pytest.approx(0.025)
    assert mean_error([0.03, 0.04, 0.0], 3) == pytest.approx(0.05 / 3)  # a failed workload: 0, no error
    assert ci95(0.01) == pytest.approx(0.0196)


def test_the_report_gives_each_score_and_each_mean_its_interval(scale_shift: Problem) -> None:
    timing = {"rse": 0.01}
    results = {}
    for i, workload in enumerate(scale_shift.workloads):
        results[workload.uuid] = {"status": "PASSED", "latency_ms": KERNEL, "timing": timing,
                                  "reference_latency_ms": BASELINE, "baseline_latency_ms": BASELINE,
                                  "baseline_is_reference": True, "reference_timing": {"rse": 0.02}}
        if i == 0:
            results[workload.uuid] = {"status": "RUNTIME_ERROR", "message": "boom"}
    report = build_report(scale_shift.definition, scale_shift.workloads, HarnessOutcome(results=results),
                          get_hardware("h200"))
    rows = report["workloads"]
    assert "score_ci95" not in rows[0]
    passed = rows[1:]
    assert passed and all(r["score_ci95"] > 0 for r in passed)
    sol = passed[0]["sol_ms"]
    assert passed[0]["score_ci95"] == pytest.approx(Z95 * score_error(KERNEL, 0.01, BASELINE, 0.02, sol))
    errors = [r["score_ci95"] / Z95 for r in passed]
    assert report["aggregates"]["score_ci95"] == pytest.approx(Z95 * mean_error(errors, len(rows)))
    assert report["aggregates"]["visible_score_ci95"] == report["aggregates"]["score_ci95"]
    assert report["aggregates"]["hidden_score_ci95"] is None
