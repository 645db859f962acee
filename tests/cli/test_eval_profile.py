"""`solarena eval --profile` on the CPU: correctness on the visible workloads only, then torch's
profiler (no ncu here, said in one line), the top kernels printed per workload and written in
the --json document beside the scored fields."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.harness.problem import load_problem
from tests.cli.test_eval_command import solarena, write
from tests.conftest import SCALE_SHIFT, TEST_SECRET

LABELLED = """
import torch

def run(x, bias):
    with torch.autograd.profiler.record_function("scale_by_two"):
        y = x * 2.0
    return y + bias[None, :]
"""


def test_profile_json_lists_top_kernels_of_visible_workloads_only(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, LABELLED)),
                      "--hardware", "cpu", "--secret", TEST_SECRET, "--profile", "--json",
                      "--correctness-rounds", "1")
    assert result.returncode == 0, result.stderr
    assert "profiling with torch's profiler (on the CPU)" in result.stderr
    report = json.loads(result.stdout)
    assert report["mode"] == "profile"
    visible = [w.uuid for w in load_problem(SCALE_SHIFT).smoke_workloads]
    assert [r["uuid"] for r in report["workloads"]] == visible  # hidden ones never drawn
    for row in report["workloads"]:
        assert row["status"] == "PASSED" and row["latency_ms"] is None  # nothing timed, nothing scored
        assert row["profile"]["tool"] == "torch_profiler"
        names = [k["name"] for k in row["profile"]["kernels"]]
        assert "scale_by_two" in names and "aten::mul" in names


def test_profile_table_is_printed_per_workload(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, LABELLED)),
                      "--hardware", "cpu", "--secret", TEST_SECRET, "--mode", "profile",
                      "--correctness-rounds", "1")
    assert result.returncode == 0, result.stderr
    for uuid in (w.uuid for w in load_problem(SCALE_SHIFT).smoke_workloads):
        assert f"top kernels of {uuid} (torch_profiler, 3 calls)" in result.stdout
    assert "scale_by_two" in result.stdout and "aten::mul" in result.stdout
    assert " us " in result.stdout or " ms " in result.stdout  # times in the unit that fits
    assert "hidden" not in result.stdout


def test_profile_is_a_mode_of_its_own(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, LABELLED)),
                      "--hardware", "cpu", "--profile", "--mode", "benchmark")
    assert result.returncode == 2
    assert "--profile is a mode of its own" in result.stderr
