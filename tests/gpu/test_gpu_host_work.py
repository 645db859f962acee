"""Host work charged, not flagged: SOL-ExecBench's cuDNN example creates and destroys a cuDNN
handle on every call, milliseconds of CPU work around a kernel of about a millisecond that no GPU
activity record accounts for. The GPU waits for the host meanwhile, inside the reporter's own
bracket of the call (evaluator/harness/gpu_bracket.py), so every workload passes and is timed at
the bracket less the harness's costs and the allowance (evaluator/harness/calibration.py). Runs
only where a CUDA GPU and the example are there."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
import torch

from evaluator.harness import status
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles
from tests.conftest import SOLX_EXAMPLES
from tests.gpu.support import run_on_gpu

CUDNN = SOLX_EXAMPLES / "cudnn" / "softmax"

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
              pytest.mark.skipif(not CUDNN.is_dir(), reason="SOL-ExecBench's examples are not here")]


def test_a_handle_made_on_every_call_is_charged_to_the_call(tmp_path: Path) -> None:
    problem = load_problem(CUDNN)
    solution = SolutionFiles.from_path(next(CUDNN.glob("solution*.json")))
    outcome = run_on_gpu(tmp_path / "job", problem, solution, problem.workloads, secrets.randbits(48))
    for uuid, result in outcome.results.items():
        assert result["status"] == status.PASSED, (uuid, result)
        held = result["timing"]["outside"]
        assert held["charged_calls"] == held["calls"], (uuid, held)
        assert held["charged_ms"] > held["allowance_ms"], (uuid, held)
        assert result["latency_ms"] >= 0.9 * held["bound_ms"], (uuid, result)
