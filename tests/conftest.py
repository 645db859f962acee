"""Shared test helpers: evaluating a solution through the real harness process on the CPU."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.problem import Problem, Workload, load_problem
from evaluator.jobs import SolutionFiles, write_job
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_harness

ROOT = Path(__file__).resolve().parent.parent
# Property tests judge what they find, not how fast the examples come: on a shared 2-CPU machine
# running the suite in parallel, input generation can take seconds.
settings.register_profile("shared-machine", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile("shared-machine")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCALE_SHIFT = FIXTURES / "problems" / "scale_shift"
# SOL-ExecBench's published examples, read where they lie (shared/ beside the checkout; never
# copied into this repository); SOLARENA_SOLX_EXAMPLES names another place.
SOLX_EXAMPLES = Path(os.environ.get("SOLARENA_SOLX_EXAMPLES") or next(
    (str(p / "shared" / "solx-examples") for p in ROOT.parents if (p / "shared" / "solx-examples").is_dir()),
    "/work/shared/solx-examples"))
TEST_SECRET = "test-secret"
# A general Triton solution of the fixture problem (one program per block of elements).
SCALE_SHIFT_TRITON = """
import torch
import triton
import triton.language as tl

@triton.jit
def _kernel(x, b, y, cols, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask) * 2.0 + tl.load(b + offs % cols, mask=mask)
    tl.store(y + offs, v, mask=mask)

def run(x, bias):
    y = torch.empty_like(x)
    _kernel[(triton.cdiv(x.numel(), 256),)](x, bias, y, x.shape[1], x.numel(), BLOCK=256)
    return y
"""
FAST = {"correctness_rounds": 2, "timing": {"warmup": 1, "min_iterations": 2, "max_iterations": 3}}


def pytest_configure(config: pytest.Config) -> None:
    """Tests make many users: hash their passwords the cheap way (never outside tests). Most tests
    submit with no worker running: every hardware counts as expecting workers, in this process and
    in the servers tests start, unless a test says otherwise (tests/api/test_worker_heartbeats.py)."""
    os.environ.setdefault("SOLARENA_EXPECTED_HARDWARE", "*")
    # Workers do not calibrate shared baselines on their own, which would keep them busy between
    # the evaluations a test watches; tests/platform/test_shared_baselines.py turns it on.
    os.environ.setdefault("SOLARENA_CALIBRATE_ON_MISS", "0")
    if config.pluginmanager.hasplugin("django"):
        from django.conf import settings

        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        settings.SOLARENA_EXPECTED_HARDWARE = os.environ["SOLARENA_EXPECTED_HARDWARE"]
        settings.SOLARENA_CALIBRATE_ON_MISS = os.environ["SOLARENA_CALIBRATE_ON_MISS"] == "1"


@dataclass
class Evaluated:
    problem: Problem
    workloads: list[Workload]
    outcome: HarnessOutcome

    def result(self, uuid: str) -> dict[str, Any]:
        return self.outcome.results[uuid]

    @property
    def statuses(self) -> dict[str, str]:
        return {w.uuid: self.outcome.results[w.uuid]["status"] for w in self.workloads}


def smoke_workloads(problem: Problem, secret: str = TEST_SECRET) -> list[Workload]:
    return problem.smoke_workloads + draw_hidden(problem, secret, smoke=True)


def evaluate_source(
    tmp_path: Path,
    source: str,
    *,
    problem_dir: Path = SCALE_SHIFT,
    filename: str = "solution.py",
    options: dict[str, Any] | None = None,
    workload_seconds: float = 60.0,
    startup_seconds: float = 120.0,
    seed: int = 1234,
    backend: str = "none",
    supervise: dict[str, Any] | None = None,
) -> Evaluated:
    """Write `source` as a solution and evaluate it on the smoke workloads (visible + hidden)."""
    path = tmp_path / filename
    path.write_text(source, encoding="utf-8")
    return evaluate_file(tmp_path, path, problem_dir=problem_dir, options=options,
                         workload_seconds=workload_seconds, startup_seconds=startup_seconds, seed=seed,
                         backend=backend, supervise=supervise)


def evaluate_file(
    tmp_path: Path,
    solution: Path,
    *,
    problem_dir: Path = SCALE_SHIFT,
    options: dict[str, Any] | None = None,
    workload_seconds: float = 60.0,
    startup_seconds: float = 120.0,
    seed: int = 1234,
    backend: str = "none",
    supervise: dict[str, Any] | None = None,
) -> Evaluated:
    """Evaluate a solution file; `supervise` holds extra SuperviseOptions fields (limits)."""
    problem = load_problem(problem_dir)
    workloads = smoke_workloads(problem)
    job_dir = tmp_path / "job"
    write_job(job_dir, problem, SolutionFiles.from_path(solution), workloads, seed=seed,
              device="cpu", options=options if options is not None else FAST)
    outcome = run_harness(job_dir, [w.uuid for w in workloads],
                          SuperviseOptions(workload_seconds=workload_seconds, startup_seconds=startup_seconds,
                                           cpu_interpreter=True, backend=backend,
                                           **(supervise or {})))
    return Evaluated(problem, workloads, outcome)


@pytest.fixture
def scale_shift() -> Problem:
    return load_problem(SCALE_SHIFT)
