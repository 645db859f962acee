"""`solarena status` of a profile run: each workload's kernels as `eval` prints them, and for a
result whose Nsight Compute report the worker kept (`report_bytes`), where its owner downloads it;
a profile that fell back to torch's profiler says why."""

from __future__ import annotations

import io

from rich.console import Console

from solarena.client_commands import print_submission

KERNEL = {"name": "_kernel", "kind": "kernel", "calls": 3, "total_ms": 0.01, "mean_ms": 0.0033,
          "grid": [1024, 1, 1], "block": [256, 1, 1], "registers_per_thread": 16, "shared_memory_bytes": 0,
          "sm_throughput_pct": 12.0, "memory_throughput_pct": 61.9, "dram_throughput_pct": 61.9,
          "achieved_occupancy_pct": 78.4}


def row(uuid: str, profile: dict) -> dict:
    return {"uuid": uuid, "axes": {"rows": 1}, "status": "PASSED", "message": "", "latency_ms": None,
            "sol_ms": 0.1, "score": 0.0, "profile": profile}


def test_status_says_where_a_kept_report_is_downloaded() -> None:
    kept = {"tool": "ncu", "calls": 3, "kernels": [KERNEL], "truncated": False, "report_bytes": 312_000}
    fallen_back = {"tool": "torch_profiler", "calls": 3, "kernels": [], "truncated": False,
                   "ncu_error": "ncu wrote no report (No such file or directory): ==ERROR== ERR_NVGPUCTRPERM"}
    document = {"id": 12, "problem": "scale_shift", "problem_version": 1, "language": "python",
                "mode": "profile", "created": "2026-12-03T10:00:00Z",
                "evaluations": [{"hardware": "h200", "state": "scored", "outcome": "scored",
                                 "results": [row("w1", kept), row("w2", fallen_back)]}]}
    console = Console(file=io.StringIO(), width=400)
    print_submission(document, console)
    printed = console.file.getvalue()
    assert "top kernels of w1 (ncu, 3 calls)" in printed and "occupancy %" in printed
    assert ("w1: Nsight Compute report (312 kB): /api/v1/submissions/12/profile/h200/w1.ncu-rep on the server"
            in printed)
    assert "w2: Nsight Compute failed (ncu wrote no report" in printed and "ERR_NVGPUCTRPERM" in printed
    assert "w2.ncu-rep" not in printed
