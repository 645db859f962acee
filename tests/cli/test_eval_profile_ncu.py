"""`solarena eval --profile`'s Nsight Compute path on the CPU, with a fake `ncu` first on PATH
(tests/fixtures/ncu/fake_ncu.py) and the CLI told it may use it (cli.ncu_for, as on a GPU): each
visible workload runs under ncu with the arguments ncu needs, its report is read back and copied
to --profile-dir, and the kernels and sections listed are the ones ncu's CSV gave."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from evaluator.harness import ncu
from evaluator.harness.problem import load_problem
from solarena import cli as solarena_cli
from tests import fake_ncu
from tests.cli.test_eval_command import CORRECT, write
from tests.conftest import SCALE_SHIFT, TEST_SECRET

GEMM = "void gemm_kernel<float, 128, 128>(float const*, float*, int)"  # in the fake's CSV


def test_reports_land_in_the_profile_dir_and_their_kernels_are_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> None:
    bin_dir = tmp_path / "bin"
    fake = fake_ncu.install(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(solarena_cli, "ncu_for", lambda cpu: ncu.find_ncu())  # as on a GPU
    out = tmp_path / "reports"
    result = cli("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, CORRECT)),
                 "--hardware", "cpu", "--secret", TEST_SECRET, "--profile", "--profile-dir", str(out),
                 "--json", "--correctness-rounds", "1")
    assert result.code == 0, result.err
    assert f"profiling with Nsight Compute ({fake})" in result.err
    report = json.loads(result.out)
    visible = [w.uuid for w in load_problem(SCALE_SHIFT).smoke_workloads]
    assert [row["uuid"] for row in report["workloads"]] == visible
    for row in report["workloads"]:
        assert row["status"] == "PASSED" and row["latency_ms"] is None, row
        profile = row["profile"]
        assert (profile["tool"], profile["calls"], profile["truncated"]) == ("ncu", 3, False)
        gemm, kernel = profile["kernels"]  # longest total first
        assert (gemm["name"], gemm["calls"], gemm["grid"], gemm["block"]) == (
            GEMM, 1, [32, 16, 1], [128, 1, 1])
        assert gemm["sm_throughput_pct"] == 91.30 and gemm["shared_memory_bytes"] == 49_152 + 512
        assert (kernel["name"], kernel["calls"]) == ("_kernel", 2)
        assert kernel["achieved_occupancy_pct"] == pytest.approx(79.5)
        kept = out / f"scale_shift-{row['uuid']}.ncu-rep"
        assert profile["report"] == str(kept)
        assert kept.read_bytes().startswith(fake_ncu.MARK)

    calls = fake_ncu.calls(bin_dir)  # per workload: its run under ncu, then its report read back
    assert [call[0] for call in calls] == ["--target-processes", "--import"] * len(visible)
    for run, read in zip(calls[::2], calls[1::2], strict=True):
        assert read[1] == run[run.index("--export") + 1]

    console = Console(file=io.StringIO(), width=400)
    solarena_cli.print_profiles(report, console)
    printed = console.file.getvalue()
    for uuid in visible:
        assert f"top kernels of {uuid} (ncu, 3 calls)" in printed
        assert f"{uuid}: Nsight Compute report {out / f'scale_shift-{uuid}.ncu-rep'}" in printed
    assert all(column in printed for column in ("SM %", "mem %", "DRAM %", "occupancy %"))
    assert GEMM in printed and "91.3" in printed
