"""Shared baseline times from several runs (evaluator/scoring/robust.py, shared.py): one run far off
does not move the stored figure, runs that agree are all kept, too few runs give no figure, and an
evaluation scored against stored times gets them (and their rse) in place of its own."""

from __future__ import annotations

import statistics

import pytest

from evaluator.harness.problem import load_problem
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import scored_workload
from evaluator.scoring.robust import MIN_SPREAD, TooFewRuns, robust_time
from evaluator.scoring.shared import SharedTimes, with_shared_times, workload_figures
from tests.conftest import SCALE_SHIFT

AGREEING = [1.00, 1.01, 0.99, 1.02, 0.98]


def test_one_run_100x_off_does_not_move_the_figure() -> None:
    clean = robust_time(AGREEING[:4])
    noisy = robust_time([*AGREEING[:4], 100.0])
    assert noisy.ms == clean.ms == pytest.approx(1.005)
    assert (noisy.kept, noisy.rejected) == (4, 1)
    assert noisy.spread == pytest.approx(clean.spread) and clean.spread < 0.02
    assert statistics.mean([*AGREEING[:4], 100.0]) > 20  # what a plain mean would have stored


def test_a_run_100x_too_fast_is_rejected_too() -> None:
    figure = robust_time([0.01, *AGREEING])
    assert figure.ms == pytest.approx(1.0) and figure.rejected == 1


def test_runs_that_agree_are_all_kept() -> None:
    figure = robust_time(AGREEING, [0.001] * 5)
    assert (figure.ms, figure.kept, figure.rejected) == (1.0, 5, 0)
    assert figure.spread == pytest.approx(statistics.stdev(AGREEING))
    assert figure.rse == pytest.approx(figure.spread / 5 ** 0.5)


def test_identical_runs_keep_a_close_one() -> None:
    """MAD 0: the floor (MIN_SPREAD of the median) keeps a run 2% off, rejects one 10% off."""
    assert robust_time([2.0, 2.0, 2.0, 2.04]).kept == 4
    assert 0.10 > 3.5 * MIN_SPREAD and robust_time([2.0, 2.0, 2.0, 2.2]).rejected == 1


def test_the_runs_own_noise_is_the_floor_of_the_rse() -> None:
    figure = robust_time([1.0, 1.0, 1.0, 1.0], [0.04, 0.04, 0.04, 0.04])
    assert figure.spread == 0 and figure.rse == pytest.approx(0.04 / 2)


@pytest.mark.parametrize("runs", [[], [1.0], [1.0, 1.1], [1.0, None, float("nan"), -1.0, 0.0]])
def test_too_few_runs_give_no_figure(runs: list) -> None:
    with pytest.raises(TooFewRuns, match="at least 3"):
        robust_time(runs)


def test_missing_runs_count_as_rejected() -> None:
    figure = robust_time([1.0, None, 1.0, 1.0, float("inf")])
    assert (figure.kept, figure.rejected) == (3, 2)


def raw(reference: float, baseline: float, status: str = "PASSED") -> dict:
    return {"status": status, "reference_latency_ms": reference, "reference_timing": {"rse": 0.01},
            "baseline_latency_ms": baseline, "baseline_timing": {"rse": 0.02}}


def test_a_workloads_figures_from_its_runs() -> None:
    runs = [raw(2.0, 1.0), raw(2.02, 1.01), raw(200.0, 0.99), raw(1.98, 100.0), raw(2.01, 1.0)]
    figures = workload_figures(runs)
    assert figures.reference.ms == pytest.approx(2.005) and figures.reference.rejected == 1
    assert figures.baseline is not None and figures.baseline.ms == pytest.approx(1.0)
    assert figures.baseline.rejected == 1 and not figures.baseline_is_reference
    assert figures.reference_runs_ms[2] == 200.0


def test_a_reference_that_failed_in_most_runs_gives_no_figure() -> None:
    runs = [raw(2.0, 1.0), raw(2.0, 1.0), {"status": "RUNTIME_ERROR", "message": "boom"}]
    with pytest.raises(TooFewRuns, match="boom"):
        workload_figures(runs)


def test_a_baseline_that_failed_leaves_the_reference_as_the_bar() -> None:
    runs = [{"status": "PASSED", "reference_latency_ms": 2.0, "baseline_error": "wrong result"}] * 3
    figures = workload_figures(runs)
    assert figures.baseline is None and figures.baseline_error == "wrong result"


SHARED = SharedTimes(id=7, reference_ms=4.0, reference_rse=0.001, baseline_ms=2.0, baseline_rse=0.002,
                     baseline_is_reference=False, baseline_error="", runs=5,
                     measured_at="2026-12-03T00:00:00")


def test_an_evaluation_is_scored_against_the_shared_times() -> None:
    problem = load_problem(SCALE_SHIFT)
    workload = problem.workloads[0]
    in_run = {"status": "PASSED", "latency_ms": 1.0, "timing": {"rse": 0.01}}
    failed = {"status": "INCORRECT_NUMERICAL", "message": "wrong"}
    results = with_shared_times({workload.uuid: in_run, "other": failed}, {workload.uuid: SHARED,
                                                                          "other": SHARED})
    assert "reference_latency_ms" not in results["other"]  # as a run that times them itself
    row = scored_workload(problem.definition, workload, results[workload.uuid], get_hardware("h200"))
    assert row["baseline_latency_ms"] == 2.0 and row["reference_latency_ms"] == 4.0
    assert row["speedup_vs_reference"] == 4.0
    assert row["shared_baseline"] == {"id": 7, "measured_at": "2026-12-03T00:00:00", "runs": 5}
    assert row["baseline_timing"]["rse"] == 0.002 and row["baseline_timing"]["shared"] is True
    unshared = scored_workload(problem.definition, workload, {**in_run, "baseline_latency_ms": 2.0,
                                                              "baseline_timing": {"rse": 0.2}},
                               get_hardware("h200"))
    assert row["score"] == unshared["score"]
    assert row["score_ci95"] < unshared["score_ci95"]  # the stored baseline's rse, not a noisy one's
