"""Shared baselines on the GPU: a calibration's runs (the reference as the solution, untimed; the
reference and the baseline timed) give every workload of a bundled problem a robust reference and
baseline time, and the time scores are measured against agrees closely run to run."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from evaluator.harness import status
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles, write_job
from evaluator.scoring.shared import CALIBRATION_OPTIONS, workload_figures
from evaluator.supervise import SuperviseOptions, run_harness
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]
RUNS = 3


def test_calibration_runs_give_every_workload_robust_times(tmp_path: Path) -> None:
    problem = load_problem(ROOT / "problems" / "rmsnorm")
    reference = SolutionFiles({"solution.py": problem.definition.reference}, "solution.py")
    uuids = [w.uuid for w in problem.workloads]
    runs = []
    for seed in range(RUNS):
        job = tmp_path / f"run{seed}"
        write_job(job, problem, reference, problem.workloads, seed=seed + 1, device="cuda",
                  options=CALIBRATION_OPTIONS)
        outcome = run_harness(job, uuids, SuperviseOptions(workload_seconds=300))
        assert outcome.environment["device"] == "cuda"
        runs.append(outcome.results)
    for uuid in uuids:
        rows = [run[uuid] for run in runs]
        assert all(row["status"] == status.PASSED for row in rows), rows
        assert all("latency_ms" not in row for row in rows), "the reference, as the solution, was timed"
        figures = workload_figures(rows)
        print(uuid, figures.reference, figures.baseline)
        assert figures.reference.ms > 0 and figures.reference.kept >= RUNS - 1
        # The yardstick scores use (docs/scoring.md) must agree run to run. rmsnorm's eager
        # reference launches several kernels and varied 17% between runs on the H200
        # (0.17-0.24 ms) while its baseline held within 0.3% (0.01341-0.01349 ms).
        if figures.baseline_is_reference:
            assert figures.reference.spread < 0.10, figures.reference_runs_ms
        else:
            assert figures.baseline is not None and figures.baseline.ms > 0, figures.baseline_error
            assert figures.baseline.spread < 0.10, figures.baseline_runs_ms
