"""Which Nsight Compute reports a worker keeps (evaluator/profile_reports.py): each within
SOLARENA_NCU_REPORT_BYTES, an evaluation's together within SOLARENA_NCU_EVALUATION_BYTES, in
workload order; and only a regular file: the solution can replace the report with a link to the
worker's own files, or a FIFO that would block the read. What is left out says why."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evaluator import ncu_runs, profile_reports
from evaluator.supervise import HarnessOutcome


def profiled(reports: dict[str, Path]) -> ncu_runs.NcuProfile:
    results = {uuid: {"status": "PASSED", "profile": {"tool": "ncu"}} for uuid in reports}
    outcome = HarnessOutcome(results=results)
    return ncu_runs.NcuProfile(outcome=outcome, reports=reports)


def left_out(done: ncu_runs.NcuProfile) -> dict[str, str]:
    return {uuid: r["profile"]["report_left_out"] for uuid, r in done.outcome.results.items()
            if "report_left_out" in r["profile"]}


def test_each_report_and_all_of_them_are_bounded(settings: Any, tmp_path: Path) -> None:
    settings.SOLARENA_NCU_REPORT_BYTES, settings.SOLARENA_NCU_EVALUATION_BYTES = 10, 16
    sizes = {"a": 8, "big": 11, "b": 8, "c": 8}
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
    done = profiled({name: tmp_path / name for name in sizes})
    kept = profile_reports.keep(done)
    assert kept == {"a": b"x" * 8, "b": b"x" * 8}
    assert [done.outcome.results[u]["profile"].get("report_bytes") for u in sizes] == [8, None, 8, None]
    assert left_out(done) == {"big": "larger than 10 bytes, the limit of a report",
                              "c": "the evaluation's reports would pass 16 bytes"}


def test_only_a_regular_file_is_read(settings: Any, tmp_path: Path) -> None:
    secret = tmp_path / "worker-secret"
    secret.write_bytes(b"DATABASE_URL=postgres://...")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")
    done = profiled({"link": tmp_path / "link", "fifo": tmp_path / "fifo", "gone": tmp_path / "gone"})
    assert profile_reports.keep(done) == {}
    assert left_out(done) == {"link": "the report is a link, not a file",
                              "fifo": "the report is not a regular file",
                              "gone": "ncu wrote no report (No such file or directory)"}
