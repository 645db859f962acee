"""`solarena eval --profile` where Nsight Compute cannot serve: an ncu that does not start the
harness, or that runs it but writes no report (no access to the GPU's counters), is given up after
the first workload, and every workload is profiled under torch's profiler instead, the CLI and
each profile saying why; without ncu the CLI says so and uses torch's profiler from the start."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness import ncu, profiling
from evaluator.harness.problem import load_problem
from solarena import cli as solarena_cli
from tests import fake_ncu
from tests.cli.test_eval_command import CORRECT, write
from tests.conftest import SCALE_SHIFT, TEST_SECRET


@pytest.mark.parametrize(("mode", "said"), [("refuses", "Failed to initialize the profiler"),
                                            ("no-report", "ERR_NVGPUCTRPERM")])
def test_a_failing_ncu_gives_way_to_torchs_profiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    cli: Any, mode: str, said: str) -> None:
    bin_dir = tmp_path / "bin"
    fake_ncu.install(bin_dir, mode)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(solarena_cli, "ncu_for", lambda cpu: ncu.find_ncu())  # as on a GPU
    out = tmp_path / "reports"
    result = cli("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, CORRECT)),
                 "--hardware", "cpu", "--secret", TEST_SECRET, "--profile", "--profile-dir", str(out),
                 "--json", "--correctness-rounds", "1")
    assert result.code == 0, result.err
    note = next(line for line in result.err.splitlines() if line.startswith("Nsight Compute failed"))
    assert said in note and note.endswith("profiling with torch's profiler instead, kernel names and times, "
                                          "no hardware counters")
    report = json.loads(result.out)
    visible = [w.uuid for w in load_problem(SCALE_SHIFT).smoke_workloads]
    assert [r["uuid"] for r in report["workloads"]] == visible
    for row in report["workloads"]:
        assert row["status"] == "PASSED", row
        assert row["profile"]["tool"] == profiling.TORCH and said in row["profile"]["ncu_error"]
        assert "aten::mul" in [k["name"] for k in row["profile"]["kernels"]]
    assert len(fake_ncu.calls(bin_dir)) == 1  # given up at the first workload; nothing to read back
    assert not list(out.glob("*.ncu-rep"))


def test_ncu_is_used_only_on_a_gpu_where_it_is_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    fake = fake_ncu.install(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert solarena_cli.ncu_for(cpu=False) == str(fake)
    assert solarena_cli.ncu_for(cpu=True) is None
    monkeypatch.setenv("PATH", str(tmp_path))
    assert solarena_cli.ncu_for(cpu=False) is None
    assert solarena_cli.profiling_tool(None, cpu=False) == profiling.TORCH
    assert "profiling with torch's profiler (ncu is not on PATH)" in capsys.readouterr().err
