"""`solarena submit --mode profile --workload UUID` and `solarena profile --workload UUID` against
a live test server: the submission profiles that workload alone, says so, and the server's refusal
(another mode, a uuid that is no visible workload) exits 2 with its message, storing nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from submissions.models import Submission
from tests.cli.support import Server, write_solution

pytestmark = pytest.mark.timeout(60)
UUID = "rows1024_cols4096"


def test_submit_and_profile_send_the_workload(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    solution = str(write_solution(tmp_path))
    submitted = cli("submit", solution, "--problem", "scale_shift", "--hardware", "cpu", "--mode", "profile",
                    "--workload", UUID, "--json")
    assert submitted.code == 0, submitted.err
    assert (submitted.json()["mode"], submitted.json()["workload"]) == ("profile", UUID)
    shortcut = cli("profile", solution, "--problem", "scale_shift", "--hardware", "cpu", "--workload", UUID)
    assert shortcut.code == 0, shortcut.err
    assert f"a private profile run of workload {UUID})" in shortcut.out
    assert [(s.mode, s.workload) for s in Submission.objects.order_by("pk")] == [("profile", UUID)] * 2
    every = cli("profile", solution, "--problem", "scale_shift", "--hardware", "cpu", "--json")
    assert every.code == 0 and every.json()["workload"] == ""


def test_refusals_exit_2_with_the_servers_message(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    solution = str(write_solution(tmp_path))
    ranked = cli("submit", solution, "--problem", "scale_shift", "--hardware", "cpu", "--workload", UUID)
    assert ranked.code == 2 and "profile mode only" in ranked.err
    unknown = cli("profile", solution, "--problem", "scale_shift", "--hardware", "cpu", "--workload", "nope")
    assert unknown.code == 2 and "problem scale_shift (v1) has no visible workload 'nope'" in unknown.err
    assert not Submission.objects.exists()


def test_only_submit_and_profile_take_a_workload(logged_in: Server, tmp_path: Path, cli: Any,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli("test", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
            "--workload", UUID)
    assert exited.value.code == 2
