"""Class 18, reporter takeover: a solution plants code where the trusted reporter would import it
when the supervisor starts it again (an `evaluator` package in a writable working directory, a
usercustomize.py or .pth under HOME's user site-packages), then forces that restart. The planted
reporter must never run: the evaluation ends with the verdicts the real harness gives.

The user-site routes need an interpreter that reads the user site-packages, which a virtual
environment does not; they are tried with the base interpreter, on files planted beforehand (under
docker, with the image's interpreter, which reads them unless told not to)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from evaluator.harness import status
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles, write_job
from evaluator.supervise import SuperviseOptions, run_harness
from tests.anticheat.conftest import CHEATS, CheatRun, assert_not_broken, current_backend, evaluate_cheat
from tests.conftest import FAST, SCALE_SHIFT, evaluate_source, smoke_workloads

MARKER = "TAKEN_OVER"
PLANTED_MESSAGE = "planted reporter"
BOMB_LIMITS = {"max_processes": 32}
HONEST = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"


def _taken_over(job: Path) -> str:
    marker = job / MARKER
    return marker.read_text() if marker.exists() else ""


def test_a_reporter_planted_in_the_job_directory_never_runs(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "reporter_takeover", supervise=BOMB_LIMITS, workload_seconds=30)
    job = tmp_path / "job"
    assert (job / "evaluator" / "harness" / "__main__.py").is_file(), "the cheat planted nothing"
    assert not _taken_over(job), f"the planted reporter ran: {_taken_over(job)}\n{run.describe()}"
    _assert_honest_verdicts(run)


def _assert_honest_verdicts(run: CheatRun) -> None:
    """The bombed workload ended at the process limit; the harness started again and measured
    every other one itself."""
    assert_not_broken(run)
    assert not any(PLANTED_MESSAGE in r["message"] for r in run.rows), run.describe()
    stopped = [r for r in run.rows if r["status"] != status.PASSED]
    assert len(stopped) == 1, run.describe()
    assert stopped[0]["status"] == status.RUNTIME_ERROR and "process limit" in stopped[0]["message"]
    assert all("timing" in r for r in run.rows if r["status"] == status.PASSED), run.describe()


def _cheat_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reporter_takeover", CHEATS / "reporter_takeover.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["usercustomize", "pth"])
def test_a_reporter_planted_in_the_user_site_never_runs(tmp_path: Path, kind: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The base interpreter (no torch): the real harness fails to start, which is the honest
    verdict; a planted reporter would answer PASSED."""
    problem = load_problem(SCALE_SHIFT)
    workloads = smoke_workloads(problem)
    solution = tmp_path / "solution.py"
    solution.write_text(HONEST)
    job = tmp_path / "job"
    write_job(job, problem, SolutionFiles.from_path(solution), workloads, seed=1234, device="cpu",
              options=FAST)
    monkeypatch.setenv("HOME", str(job))  # the harness's HOME: where the solution plants
    _cheat_module()._plant_user_site((kind,))
    assert list(job.glob(".local/lib/python*/site-packages/*")), "nothing planted"

    outcome = run_harness(job, [w.uuid for w in workloads],
                          SuperviseOptions(cpu_interpreter=True, backend=current_backend(),
                                           startup_seconds=60,
                                           python=sys._base_executable))
    assert not _taken_over(job), f"the planted reporter ran: {_taken_over(job)}"
    assert not any(PLANTED_MESSAGE in r["message"] for r in outcome.results.values())
    if current_backend() == "docker":  # the image's own interpreter, with torch: honest verdicts
        assert {r["status"] for r in outcome.results.values()} == {status.PASSED}, outcome.results
    else:
        assert all(r["status"] != status.PASSED for r in outcome.results.values()), outcome.results


# The solution's own process is started by the reporter (python -P -s): it must get the
# same safe path, so nothing planted on a writable sys.path entry loads before the solution does.
SAFE_PATH_PROBE = """
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _problems():
    found = []
    if not sys.flags.safe_path:
        found.append("no safe path (-P)")
    if not sys.flags.no_user_site:
        found.append("user site enabled (-s)")
    for entry in sys.path:
        path = os.path.abspath(entry or os.getcwd())
        if path != HERE and os.path.isdir(path) and os.access(path, os.W_OK):
            found.append(f"writable sys.path entry {path}")
    if os.access(os.getcwd(), os.W_OK):
        found.append(f"writable working directory {os.getcwd()}")
    return found


PROBLEMS = _problems()


def run(x, bias):
    if PROBLEMS:
        raise RuntimeError("UNSAFE " + json.dumps(PROBLEMS))
    return x * 2.0 + bias[None, :]
"""


def test_the_solution_process_has_no_writable_directory_on_its_path(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, SAFE_PATH_PROBE, backend=current_backend())
    assert set(evaluated.statuses.values()) == {status.PASSED}, json.dumps(evaluated.outcome.results)[:3000]
