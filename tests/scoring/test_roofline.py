"""Each workload's place under the roofline (evaluator/scoring/roofline.py): intensity against
the ridge, the bounding roof, achieved rates and the share of the roof, consistent with the SOL
bound the score uses."""

from __future__ import annotations

import pytest

from evaluator.harness.problem import Problem
from evaluator.scoring.hardware import get_hardware, peak_bandwidth, peak_flops
from evaluator.scoring.report import scored_workload
from evaluator.scoring.roofline import roofline
from evaluator.scoring.sol import FROM_DEFINITION, WorkloadWork

H200 = get_hardware("h200")
BF16_PEAK, BANDWIDTH = peak_flops(H200, "bfloat16"), peak_bandwidth(H200)


def _work(flops: float, nbytes: float, dtype: str = "bfloat16") -> WorkloadWork:
    return WorkloadWork(flops, nbytes, dtype, FROM_DEFINITION, FROM_DEFINITION)


def test_a_large_gemm_is_compute_bound_and_its_rates_follow_its_time() -> None:
    n = 8192
    work = _work(2.0 * n**3, 3 * n * n * 2)  # bf16 A, B in; C out
    line = roofline(work, H200, kernel_ms=2.0)
    assert line.bound == "compute"
    assert line.intensity == pytest.approx(2.0 * n**3 / (6 * n * n))
    assert line.intensity > line.ridge == pytest.approx(BF16_PEAK / BANDWIDTH)
    assert line.sol_ms == pytest.approx(2.0 * n**3 / BF16_PEAK * 1e3)
    assert line.achieved_flops_per_s == pytest.approx(2.0 * n**3 / 2e-3)
    assert line.achieved_bytes_per_s == pytest.approx(6 * n * n / 2e-3)
    assert line.share_of_roof == pytest.approx(line.sol_ms / 2.0)


def test_an_elementwise_kernel_is_memory_bound_and_on_the_roof_at_its_bound() -> None:
    work = _work(1 << 24, 8 * (1 << 24), "float32")  # one FLOP per 8 bytes moved
    bound = 8 * (1 << 24) / BANDWIDTH * 1e3
    line = roofline(work, H200, kernel_ms=bound)
    assert line.bound == "memory" and line.intensity == pytest.approx(1 / 8)
    assert line.share_of_roof == pytest.approx(1.0)
    assert line.achieved_bytes_per_s == pytest.approx(BANDWIDTH)


def test_without_a_kernel_time_only_the_roof_is_given() -> None:
    line = roofline(_work(0.0, 1e6), H200)
    assert line.bound == "memory" and line.intensity == 0.0
    assert line.achieved_flops_per_s is line.achieved_bytes_per_s is line.share_of_roof is None
    assert roofline(_work(1e9, 0.0), H200).intensity is None  # moves no bytes: no intensity
    assert roofline(_work(1e9, 0.0), H200).bound == "compute"


def test_report_rows_carry_it_and_agree_with_the_sol_bound(scale_shift: Problem) -> None:
    workload = scale_shift.workloads[0]
    passed = scored_workload(scale_shift.definition, workload,
                             {"status": "PASSED", "latency_ms": 0.05, "reference_latency_ms": 0.1}, H200)
    line = passed["roofline"]
    assert line["sol_ms"] == pytest.approx(passed["sol_ms"])
    assert line["flops"] == passed["flops"] and line["bytes"] == passed["bytes"]
    assert line["share_of_roof"] == pytest.approx(passed["sol_ms"] / 0.05)
    failed = scored_workload(scale_shift.definition, workload,
                             {"status": "INCORRECT_NUMERICAL", "latency_ms": 0.05}, H200)
    assert failed["roofline"]["share_of_roof"] is None  # a wrong answer has no achieved rate
