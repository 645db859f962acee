"""The SOL bound of a workload and its score S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol))."""

import math

import pytest

from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.score import BELOW_SOL_MARGIN, sol_bound_ms, workload_score

H200 = get_hardware("h200")


def test_sol_bound_of_a_compute_bound_gemm_on_h200() -> None:
    # bf16 GEMM 8192^3: flops 2 * 8192^3 = 1.0995e12; / 989e12 FLOP/s = 1.11174e-3 s = 1.1117 ms.
    # bytes 3 * 8192^2 * 2 = 402,653,184; / 4.8e12 B/s = 0.0839 ms. The max is the compute time.
    sol = sol_bound_ms(2 * 8192**3, 3 * 8192**2 * 2, H200, "bfloat16")
    assert sol == pytest.approx(1.11174, rel=1e-5)


def test_sol_bound_of_a_memory_bound_add_on_h200() -> None:
    # float32 add of 2^24 elements: bytes 3 * 4 * 2^24 = 201,326,592; / 4.8e12 = 0.0419430 ms.
    # flops 2^24 = 16,777,216; / 67e12 = 0.00025 ms. The max is the memory time.
    n = 2**24
    sol = sol_bound_ms(n, 3 * 4 * n, H200, "float32")
    assert sol == pytest.approx(0.0419430, rel=1e-5)


def test_sol_bound_uses_calibrated_peaks() -> None:
    # 1e12 flops / 500e12 = 2 ms; 1e9 bytes / 1e12 = 1 ms -> 2 ms.
    sol = sol_bound_ms(1e12, 1e9, H200, "bfloat16", {"bfloat16": 500e12, "memory_bandwidth": 1e12})
    assert sol == pytest.approx(2.0)


def test_sol_bound_of_no_work_is_zero() -> None:
    assert sol_bound_ms(0, 0, H200, "float32") == 0.0


@pytest.mark.parametrize(("flops", "nbytes"), [(-1.0, 1.0), (1.0, -1.0), (math.nan, 1.0), (1.0, math.inf)])
def test_sol_bound_rejects_nonsense_work(flops: float, nbytes: float) -> None:
    with pytest.raises(ValueError):
        sol_bound_ms(flops, nbytes, H200, "float32")


def test_score_between_sol_and_baseline() -> None:
    # T_sol=1, T_b=3, T_k=2: 1 / (1 + (2-1)/(3-1)) = 1 / 1.5 = 0.6667
    result = workload_score(2.0, 3.0, 1.0)
    assert result.score == pytest.approx(2 / 3)
    assert not result.below_sol and result.note == ""


def test_matching_the_baseline_scores_one_half() -> None:
    # T_k = T_b: 1 / (1 + 1) = 0.5
    assert workload_score(3.0, 3.0, 1.0).score == pytest.approx(0.5)


def test_reaching_sol_scores_one() -> None:
    assert workload_score(1.0, 3.0, 1.0).score == 1.0


def test_slower_than_baseline_decays_towards_zero() -> None:
    # T_k=5: 1 / (1 + 4/2) = 1/3; T_k=1001: 1 / (1 + 1000/2) = 1/501
    assert workload_score(5.0, 3.0, 1.0).score == pytest.approx(1 / 3)
    assert workload_score(1001.0, 3.0, 1.0).score == pytest.approx(1 / 501)


def test_with_a_zero_bound_the_score_is_the_baseline_share() -> None:
    # T_sol=0: 1 / (1 + T_k/T_b) = T_b / (T_b + T_k) = 2 / (2 + 6) = 0.25
    assert workload_score(6.0, 2.0, 0.0).score == pytest.approx(0.25)


def test_within_the_margin_below_sol_is_clamped_to_one() -> None:
    # 1% below a 1 ms bound, inside the 2% margin
    result = workload_score(0.99, 3.0, 1.0)
    assert result.score == 1.0
    assert not result.below_sol
    assert "within" in result.note


def test_exactly_at_the_margin_is_not_flagged() -> None:
    assert not workload_score(1.0 - BELOW_SOL_MARGIN, 3.0, 1.0).below_sol


def test_below_sol_beyond_the_margin_is_flagged_and_not_rewarded() -> None:
    # 0.5 ms against a 1 ms bound: 50% below
    result = workload_score(0.5, 3.0, 1.0)
    assert result.below_sol
    assert result.score == 0.0
    assert "50.0% below the SOL bound" in result.note


def test_degenerate_baseline_at_the_bound() -> None:
    # T_b = T_sol = 1: the baseline reaches SOL, so S = min(1, T_b / T_k)
    assert workload_score(1.0, 1.0, 1.0).score == 1.0
    degraded = workload_score(4.0, 1.0, 1.0)  # 1 / 4
    assert degraded.score == pytest.approx(0.25)
    assert not degraded.below_sol
    assert "does not exceed the SOL bound" in degraded.note


def test_degenerate_baseline_below_the_bound() -> None:
    # T_b = 0.9 < T_sol = 1; T_k = 1.8: 0.9 / 1.8 = 0.5; T_k = 0.99 is within the margin: min(1, 0.909)
    assert workload_score(1.8, 0.9, 1.0).score == pytest.approx(0.5)
    assert workload_score(0.99, 0.9, 1.0).score == pytest.approx(0.9 / 0.99)


def test_score_stays_in_unit_interval() -> None:
    for kernel in (0.98, 1.0, 1.5, 3.0, 10.0, 1e9):
        for baseline in (0.5, 1.0, 1.01, 3.0, 1e6):
            score = workload_score(kernel, baseline, 1.0).score
            assert 0.0 <= score <= 1.0, (kernel, baseline)


@pytest.mark.parametrize(
    ("kernel", "baseline", "sol", "message"),
    [
        (0.0, 3.0, 1.0, "kernel time"),
        (-1.0, 3.0, 1.0, "kernel time"),
        (math.nan, 3.0, 1.0, "kernel time"),
        (math.inf, 3.0, 1.0, "kernel time"),
        (2.0, 0.0, 1.0, "baseline time"),
        (2.0, math.inf, 1.0, "baseline time"),
        (2.0, 3.0, -1.0, "SOL bound"),
        (2.0, 3.0, math.nan, "SOL bound"),
    ],
)
def test_nonsense_times_raise(kernel: float, baseline: float, sol: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        workload_score(kernel, baseline, sol)
