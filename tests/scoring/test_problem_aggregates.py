"""Problem-level figures over a set of scored workloads."""

import math

import pytest

from evaluator.scoring.score import (
    HIDDEN,
    INCORRECT_NUMERICAL,
    PASSED,
    TIMEOUT,
    VISIBLE,
    WorkloadOutcome,
    problem_aggregates,
)


def passed(uuid: str, visibility: str, score: float, reference_ms: float = 2.0, kernel_ms: float = 1.0,
           sol_ms: float = 0.1) -> WorkloadOutcome:
    return WorkloadOutcome(uuid, visibility, PASSED, kernel_ms=kernel_ms, reference_ms=reference_ms,
                           baseline_ms=reference_ms, sol_ms=sol_ms, score=score)


def failed(uuid: str, visibility: str, status: str = INCORRECT_NUMERICAL) -> WorkloadOutcome:
    return WorkloadOutcome(uuid, visibility, status)


def test_failures_count_zero_in_every_mean() -> None:
    outcomes = [
        passed("v1", VISIBLE, 0.8),
        passed("v2", VISIBLE, 0.6),
        passed("h1", HIDDEN, 0.9),
        failed("h2", HIDDEN),
    ]
    agg = problem_aggregates(outcomes)
    assert agg.score == pytest.approx((0.8 + 0.6 + 0.9 + 0) / 4)  # 0.575
    assert agg.visible_score == pytest.approx((0.8 + 0.6) / 2)  # 0.7
    assert agg.hidden_score == pytest.approx((0.9 + 0) / 2)  # 0.45
    assert agg.generalization_gap == pytest.approx(0.7 - 0.45)  # 0.25
    assert (agg.passed, agg.total) == (3, 4)
    assert (agg.visible_passed, agg.visible_total, agg.hidden_passed, agg.hidden_total) == (2, 2, 1, 2)


def test_a_failed_workload_reporting_a_score_still_counts_zero() -> None:
    stray = WorkloadOutcome("v1", VISIBLE, TIMEOUT, score=0.9)
    assert problem_aggregates([stray, passed("v2", VISIBLE, 0.5)]).score == pytest.approx(0.25)


def test_no_hidden_workloads() -> None:
    agg = problem_aggregates([passed("v1", VISIBLE, 0.5)])
    assert agg.hidden_score is None
    assert agg.generalization_gap is None
    assert agg.conditional_correctness is None
    assert agg.hidden_total == 0


def test_no_visible_workloads() -> None:
    agg = problem_aggregates([passed("h1", HIDDEN, 0.5)])
    assert agg.visible_score is None
    assert agg.generalization_gap is None
    assert agg.conditional_correctness is None  # nothing to condition on


def test_conditional_correctness_when_every_visible_passed() -> None:
    # both visible pass; hidden: 3 of 4 pass -> 0.75
    outcomes = [passed("v1", VISIBLE, 0.5), passed("v2", VISIBLE, 0.5),
                passed("h1", HIDDEN, 0.5), passed("h2", HIDDEN, 0.5), passed("h3", HIDDEN, 0.5),
                failed("h4", HIDDEN)]
    assert problem_aggregates(outcomes).conditional_correctness == pytest.approx(0.75)


def test_conditional_correctness_undefined_when_a_visible_failed() -> None:
    outcomes = [passed("v1", VISIBLE, 0.5), failed("v2", VISIBLE), passed("h1", HIDDEN, 0.5)]
    assert problem_aggregates(outcomes).conditional_correctness is None


def test_conditional_correctness_zero_when_every_hidden_failed() -> None:
    outcomes = [passed("v1", VISIBLE, 0.5), failed("h1", HIDDEN), failed("h2", HIDDEN, TIMEOUT)]
    assert problem_aggregates(outcomes).conditional_correctness == 0.0


def test_geomean_speedup_over_passed_workloads_only() -> None:
    # speedups reference/kernel 4/1 = 4 and 1/1 = 1: geomean sqrt(4 * 1) = 2; the failure is ignored.
    # Then 4/1 = 4 and 1/4 = 0.25: sqrt(4 * 0.25) = 1.
    outcomes = [passed("v1", VISIBLE, 0.5, reference_ms=4.0, kernel_ms=1.0),
                passed("v2", VISIBLE, 0.5, reference_ms=1.0, kernel_ms=1.0),
                failed("h1", HIDDEN)]
    assert problem_aggregates(outcomes).geomean_speedup == pytest.approx(2.0)
    slow = [passed("v1", VISIBLE, 0.5, reference_ms=4.0, kernel_ms=1.0),
            passed("v2", VISIBLE, 0.1, reference_ms=1.0, kernel_ms=4.0)]
    assert problem_aggregates(slow).geomean_speedup == pytest.approx(1.0)


def test_geomean_speedup_none_without_a_pass() -> None:
    assert problem_aggregates([failed("v1", VISIBLE)]).geomean_speedup is None


def test_fast_p_counts_strictly_faster_over_all_workloads() -> None:
    # speedups: 2.0 (exactly at the p=2 threshold, not counted there), 1.0 (exactly at p=1),
    # 1.6, 0.5, plus one failure; 5 workloads in all
    outcomes = [passed("v1", VISIBLE, 0.5, reference_ms=2.0, kernel_ms=1.0),
                passed("v2", VISIBLE, 0.5, reference_ms=1.0, kernel_ms=1.0),
                passed("h1", HIDDEN, 0.5, reference_ms=1.6, kernel_ms=1.0),
                passed("h2", HIDDEN, 0.5, reference_ms=0.5, kernel_ms=1.0),
                failed("h3", HIDDEN)]
    fast_p = problem_aggregates(outcomes).fast_p
    assert fast_p == {
        "0.0": 4 / 5,  # 2.0, 1.0, 1.6, 0.5 are all > 0
        "1.0": 2 / 5,  # 2.0, 1.6
        "1.5": 2 / 5,  # 2.0, 1.6
        "2.0": 0 / 5,  # 2.0 is not > 2.0
    }


def test_custom_fast_p_thresholds() -> None:
    outcomes = [passed("v1", VISIBLE, 0.5, reference_ms=3.0, kernel_ms=1.0)]
    assert problem_aggregates(outcomes, fast_p_thresholds=(2.5, 3)).fast_p == {"2.5": 1.0, "3.0": 0.0}


def test_below_sol_passes_are_counted_and_their_speedups_not_trusted() -> None:
    # v1 at 0.05 ms against a 0.1 ms bound: 50% below; v2 a believable 2x
    outcomes = [passed("v1", VISIBLE, 0.0, reference_ms=2.0, kernel_ms=0.05, sol_ms=0.1),
                passed("v2", VISIBLE, 0.5, reference_ms=2.0, kernel_ms=1.0, sol_ms=0.1),
                WorkloadOutcome("h1", HIDDEN, INCORRECT_NUMERICAL, kernel_ms=0.01, sol_ms=0.1)]
    agg = problem_aggregates(outcomes)
    assert agg.below_sol_count == 1  # a failure below the bound is not counted again
    assert agg.geomean_speedup == pytest.approx(2.0)
    assert agg.fast_p["1.0"] == pytest.approx(1 / 3)


def test_to_dict_is_plain_data() -> None:
    d = problem_aggregates([passed("v1", VISIBLE, 0.5), failed("h1", HIDDEN)]).to_dict()
    assert d["score"] == pytest.approx(0.25)
    assert d["hidden_score"] == 0.0
    assert d["conditional_correctness"] == 0.0
    assert d["fast_p"]["1.0"] == pytest.approx(0.5)
    assert set(d) >= {"visible_score", "generalization_gap", "geomean_speedup", "below_sol_count",
                      "passed", "total"}
    assert all(not isinstance(v, float) or math.isfinite(v) for v in d.values())


def test_empty_and_malformed_inputs_raise() -> None:
    with pytest.raises(ValueError, match="at least one workload"):
        problem_aggregates([])
    with pytest.raises(ValueError, match="visibility"):
        WorkloadOutcome("x", "secret", PASSED)
    with pytest.raises(ValueError, match="status"):
        WorkloadOutcome("x", VISIBLE, "OK")
    with pytest.raises(ValueError, match="outside"):
        WorkloadOutcome("x", VISIBLE, PASSED, score=1.5)
