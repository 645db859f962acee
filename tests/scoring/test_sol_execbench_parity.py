"""Our workload score against SOL-ExecBench's sol_score(t_k, t_b, t_sol) (src/sol_execbench/sol_score.py):

    gap = t_b - t_sol
    if gap <= 0: return 1.0 if t_k <= t_sol else 0.0
    return 1 / (1 + (t_k - t_sol) / gap)

Their numbers below are worked by hand from that formula (their package is not imported). Where
we differ on purpose, docs/scoring.md ("Parity with SOL-ExecBench") says why.
"""

import pytest

from evaluator.harness import status
from evaluator.harness.problem import load_problem
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import scored_workload
from evaluator.scoring.score import workload_score
from tests.conftest import FIXTURES

# (t_k, t_b, t_sol) in ms -> their score, which is also ours
SAME = [
    # between SOL and the baseline: 1 / (1 + 1/2) = 2/3
    ((2.0, 3.0, 1.0), 0.6666666666666666),
    # equal to the baseline: 1 / (1 + 2/2) = 0.5
    ((3.0, 3.0, 1.0), 0.5),
    # at SOL: 1 / (1 + 0) = 1
    ((1.0, 3.0, 1.0), 1.0),
    # slower than the baseline: 1 / (1 + 4/2) = 1/3; 1 / (1 + 1000/2) = 1/501
    ((5.0, 3.0, 1.0), 0.3333333333333333),
    ((1001.0, 3.0, 1.0), 0.001996007984031936),
    # no SOL bound known (0): 1 / (1 + 6/2) = 0.25
    ((6.0, 2.0, 0.0), 0.25),
    # the GEMM of docs/scoring.md on h200: 1 / (1 + 0.2883/0.4783) = 0.62392; 1 / (1 + 1.8883/0.4783)
    ((1.4, 1.59, 1.1117), 0.623923819462562),
    ((3.0, 1.59, 1.1117), 0.20210428462773605),
    # a baseline just above SOL: 1 / (1 + 0.02/0.01) = 1/3
    ((1.02, 1.01, 1.0), 0.3333333333333333),
    # baseline at SOL and the kernel at SOL: gap 0, t_k <= t_sol -> 1
    ((1.0, 1.0, 1.0), 1.0),
]

# (t_k, t_b, t_sol) -> (their score, ours): deliberate differences
DIFFERENT = [
    # faster than SOL, within our 2% margin: theirs 1 / (1 - 0.01/2) = 1.00503 (above 1); ours 1
    ((0.99, 3.0, 1.0), 1.0050251256281406, 1.0),
    # faster than SOL beyond the margin: theirs 1 / (1 - 0.5/2) = 4/3; ours 0, flagged below_sol
    ((0.5, 3.0, 1.0), 1.3333333333333333, 0.0),
    # baseline at SOL, kernel 4x slower: theirs 0 (a step); ours min(1, t_b / t_k) = 0.25
    ((4.0, 1.0, 1.0), 0.0, 0.25),
    # baseline under SOL, kernel 2x the baseline: theirs 0; ours 0.9 / 1.8 = 0.5
    ((1.8, 0.9, 1.0), 0.0, 0.5),
    # baseline under SOL, kernel within the margin under SOL: theirs 1; ours 0.9 / 0.99
    ((0.99, 0.9, 1.0), 1.0, 0.9090909090909091),
]


@pytest.mark.parametrize(("times", "theirs"), SAME, ids=[str(t) for t, _ in SAME])
def test_our_score_is_theirs(times: tuple[float, float, float], theirs: float) -> None:
    assert workload_score(*times).score == pytest.approx(theirs, rel=1e-12)


@pytest.mark.parametrize(("times", "theirs", "ours"), DIFFERENT, ids=[str(t) for t, _, _ in DIFFERENT])
def test_deliberate_differences(times: tuple[float, float, float], theirs: float, ours: float) -> None:
    result = workload_score(*times)
    assert result.score == pytest.approx(ours, rel=1e-12)
    assert result.score != pytest.approx(theirs)  # a change here must update docs/scoring.md
    assert 0.0 <= result.score <= 1.0


def test_only_a_time_beyond_the_margin_is_flagged() -> None:
    assert workload_score(0.5, 3.0, 1.0).below_sol
    assert not workload_score(0.99, 3.0, 1.0).below_sol
    assert not workload_score(4.0, 1.0, 1.0).below_sol


@pytest.mark.parametrize("latency", [None, 0.0])
def test_a_missing_or_zero_time_scores_zero_in_the_report(latency: float | None) -> None:
    # theirs: t_k=None raises TypeError; t_k=0 gives 1 / (1 - 1/2) = 2 (t_b=3, t_sol=1). Ours: 0.
    problem = load_problem(FIXTURES / "problems" / "tiny_matmul")
    workload = problem.workloads[0]
    raw = {"status": status.PASSED, "latency_ms": latency, "baseline_latency_ms": 3.0,
           "reference_latency_ms": 3.0}
    row = scored_workload(problem.definition, workload, raw, get_hardware("h200"))
    assert row["score"] == 0.0
    assert row["speedup_vs_reference"] is None


@pytest.mark.parametrize("baseline", [None, 0.0])
def test_a_missing_baseline_falls_back_to_the_reference(baseline: float | None) -> None:
    problem = load_problem(FIXTURES / "problems" / "tiny_matmul")
    workload = problem.workloads[0]
    raw = {"status": status.PASSED, "latency_ms": 1.0, "baseline_latency_ms": baseline,
           "reference_latency_ms": 1.0}
    row = scored_workload(problem.definition, workload, raw, get_hardware("h200"))
    # tiny shapes: T_sol is far below 1 ms, and T_k = T_b gives 0.5 as in their formula
    assert row["sol_ms"] < 1e-3
    assert row["score"] == pytest.approx(0.5, abs=1e-3)
