"""Running the fixture problem's workloads through the supervised harness on the GPU."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness.problem import Problem, Workload, load_problem
from evaluator.jobs import SolutionFiles, write_job
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_harness
from tests.conftest import SCALE_SHIFT


def run_on_gpu(job_dir: Path, problem: Problem, solution: SolutionFiles, workloads: list[Workload],
               seed: int) -> HarnessOutcome:
    """Lay out a job of `solution` on `workloads` and run it through the supervised harness on
    the GPU."""
    write_job(job_dir, problem, solution, workloads, seed=seed, device="cuda")
    outcome = run_harness(job_dir, [w.uuid for w in workloads], SuperviseOptions(workload_seconds=300))
    assert outcome.environment["device"] == "cuda"
    return outcome


def evaluate_on_gpu(tmp_path: Path, source: str, seed: int = 7) -> dict[str, dict]:
    """uuid -> result of each visible workload of scale_shift for the solution `source`."""
    problem = load_problem(SCALE_SHIFT)
    path = tmp_path / "solution.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    solution = SolutionFiles.from_path(path)
    return run_on_gpu(tmp_path / "job", problem, solution, problem.workloads, seed).results
