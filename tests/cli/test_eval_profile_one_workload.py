"""`solarena eval --profile --workload UUID` on the CPU: the one visible workload profiled alone,
whatever its size (a full-size one on the CPU too), as the server's profile run of one workload;
refused outside profile mode, beside --workloads, and for a uuid that is no visible workload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_eval_command import solarena, write
from tests.cli.test_eval_profile import LABELLED
from tests.conftest import SCALE_SHIFT, TEST_SECRET


@pytest.mark.parametrize("uuid", ["smoke_rows8_cols128", "rows1024_cols4096"])
def test_profile_of_one_workload_runs_that_one_alone(tmp_path: Path, uuid: str) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, LABELLED)),
                      "--hardware", "cpu", "--secret", TEST_SECRET, "--profile", "--workload", uuid,
                      "--json", "--correctness-rounds", "1")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["mode"], report["workload_selection"]) == ("profile", "visible")
    [row] = report["workloads"]
    assert (row["uuid"], row["status"]) == (uuid, "PASSED")
    assert "scale_by_two" in [k["name"] for k in row["profile"]["kernels"]]


@pytest.mark.parametrize(("extra", "said"), [
    (["--workload", "smoke_rows8_cols128"], "--workload goes with --profile"),
    (["--profile", "--workload", "smoke_rows8_cols128", "--workloads", "all"], "leave --workloads out"),
    (["--profile", "--workload", "nope"], "problem scale_shift has no visible workload 'nope'"),
])
def test_one_workload_refusals_exit_2(tmp_path: Path, extra: list[str], said: str) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, LABELLED)),
                      "--hardware", "cpu", "--secret", TEST_SECRET, *extra)
    assert result.returncode == 2 and said in result.stderr, result.stderr
