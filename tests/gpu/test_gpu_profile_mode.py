"""`solarena eval --profile` on a GPU: with Nsight Compute, each visible workload's report is
written to --profile-dir and read back, and the solution's own Triton kernel is listed with its
launch configuration, registers, occupancy and throughputs; without ncu on PATH, torch's profiler
lists the same kernel. Nothing is timed or scored. Runs only where a CUDA GPU is visible (the ncu
test also needs ncu)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from evaluator.harness import ncu
from evaluator.harness.problem import load_problem
from tests.cli.test_eval_command import write
from tests.conftest import ROOT, SCALE_SHIFT, TEST_SECRET
from tests.gpu.test_gpu_span import RETURNING

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]
KERNEL_NAME = "_scale_shift"


def profile(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> dict:
    command = [sys.executable, "-m", "solarena.cli", "eval", "--problem", str(SCALE_SHIFT),
               "--solution", str(write(tmp_path, RETURNING)), "--secret", TEST_SECRET, "--profile", "--json",
               "--correctness-rounds", "1", *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    visible = [w.uuid for w in load_problem(SCALE_SHIFT).workloads if w.visibility == "visible"]
    assert report["mode"] == "profile" and [r["uuid"] for r in report["workloads"]] == visible
    for row in report["workloads"]:
        assert row["status"] == "PASSED" and row["latency_ms"] is None, row
    return report


@pytest.mark.skipif(ncu.find_ncu() is None, reason="needs Nsight Compute (ncu)")
def test_ncu_reports_are_written_and_read(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    report = profile(tmp_path, "--profile-dir", str(out))
    for row in report["workloads"]:
        assert row["profile"]["tool"] == "ncu", row["profile"]
        assert (out / f"scale_shift-{row['uuid']}.ncu-rep").stat().st_size > 0
        ours = [k for k in row["profile"]["kernels"] if KERNEL_NAME in k["name"]]
        assert ours, [k["name"] for k in row["profile"]["kernels"]]
        kernel = ours[0]
        assert kernel["calls"] >= 1 and kernel["block"][0] > 0 and kernel["grid"][0] > 0
        assert kernel["registers_per_thread"] > 0 and kernel["mean_ms"] > 0
        assert 0 < kernel["achieved_occupancy_pct"] <= 100
        assert 0 < kernel["memory_throughput_pct"] <= 100 and 0 <= kernel["sm_throughput_pct"] <= 100


def test_without_ncu_torch_lists_the_kernel(tmp_path: Path) -> None:
    bare_path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                if not (Path(p) / "ncu").exists())  # as where ncu is not installed
    report = profile(tmp_path, env={**os.environ, "PATH": bare_path})
    for row in report["workloads"]:
        assert row["profile"]["tool"] == "torch_profiler", row["profile"]
        assert any(KERNEL_NAME in k["name"] for k in row["profile"]["kernels"]), row["profile"]["kernels"]
