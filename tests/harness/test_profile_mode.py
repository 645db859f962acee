"""Profile mode in the harness (evaluator/harness/profiling.py): after correctness (and timing),
a few more of the solution's calls, each checked like any other, run under torch's profiler, and
each workload's result carries a `profile` of its top operators. The profile is the solution's
process's own account: the reporter refuses one that is malformed and cuts one that is too
long, and it never enters a score."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness import profiling, status
from evaluator.jobs import UNTIMED
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import build_report
from tests.conftest import FAST, evaluate_source

PROFILED = {**FAST, "profile": profiling.TORCH}
LABELLED = """
import torch

def run(x, bias):
    with torch.autograd.profiler.record_function("scale_by_two"):
        y = x * 2.0
    return y + bias[None, :]
"""
# Honest, but more ranges than a profile keeps, with names longer than it keeps.
MANY_RANGES = """
import torch

def run(x, bias):
    for i in range(40):
        with torch.autograd.profiler.record_function(f"{i:03d}" + "x" * 1000):
            pass
    return x * 2.0 + bias[None, :]
"""
# Replaces the profile its process is about to send with 500 forged rows.
FORGED = """
import gc

FORGED = {"tool": "torch_profiler", "device": "cpu", "calls": 3, "truncated": False,
          "kernels": [{"name": f"k{i}", "kind": "kernel", "calls": 1, "total_ms": 0.0, "mean_ms": 0.0}
                      for i in range(500)]}

def run(x, bias):
    for obj in gc.get_objects():
        if type(obj).__name__ == "Recorder":
            obj.report = lambda calls: FORGED
    return x * 2.0 + bias[None, :]
"""


def test_each_workload_reports_the_solutions_top_operators(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, LABELLED, options=PROFILED)
    assert set(evaluated.statuses.values()) == {status.PASSED}
    for row in evaluated.outcome.results.values():
        profile = row["profile"]
        assert profile["tool"] == profiling.TORCH and profile["calls"] == profiling.CALLS
        kernels = {k["name"]: k for k in profile["kernels"]}
        assert kernels["scale_by_two"]["kind"] == "range"
        assert kernels["scale_by_two"]["calls"] == profiling.CALLS  # one a profiled call
        assert kernels["aten::mul"]["kind"] == "operator" and kernels["aten::add"]["calls"] == profiling.CALLS
        totals = [k["total_ms"] for k in profile["kernels"]]
        assert totals == sorted(totals, reverse=True) and all(math.isfinite(t) and t > 0 for t in totals)
        assert not any(name.startswith(("solarena_", "aten::zero_")) for name in kernels)  # ours are not
        assert row["latency_ms"] > 0  # timed as usual

    (tmp_path / "untimed").mkdir()
    untimed = evaluate_source(tmp_path / "untimed", LABELLED, options={**UNTIMED, "profile": profiling.TORCH})
    for row in untimed.outcome.results.values():
        assert row["status"] == status.PASSED and row["profile"]["kernels"]
        assert "latency_ms" not in row


def test_the_profile_never_enters_a_score(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, LABELLED, options=PROFILED)
    hardware = get_hardware("cpu")
    definition, workloads = evaluated.problem.definition, evaluated.workloads
    with_profile = build_report(definition, workloads, evaluated.outcome, hardware)
    stripped = copy.deepcopy(evaluated.outcome)
    for row in stripped.results.values():
        row["profile"]["kernels"] = [{**k, "total_ms": 1e-9} for k in row["profile"]["kernels"]]
    forged = build_report(definition, workloads, stripped, hardware)
    for row in stripped.results.values():
        del row["profile"]
    without = build_report(definition, workloads, stripped, hardware)

    def scored(report: dict) -> dict:  # the report less the profiles it carries beside the scores
        return {**report, "workloads": [{k: v for k, v in row.items() if k != "profile"}
                                        for row in report["workloads"]]}

    assert all(row["profile"]["kernels"] for row in with_profile["workloads"])  # carried, as stored
    assert scored(with_profile) == scored(forged) == without
    assert with_profile["aggregates"]["score"] > 0


def test_a_long_profile_is_cut_to_its_top_rows(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, MANY_RANGES, options=PROFILED)
    for row in evaluated.outcome.results.values():
        assert row["status"] == status.PASSED
        profile = row["profile"]
        assert len(profile["kernels"]) == profiling.MAX_KERNELS and profile["truncated"] is True
        assert all(len(k["name"]) <= profiling.MAX_NAME for k in profile["kernels"])


def test_a_forged_profile_is_refused(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, FORGED, options=PROFILED)
    for row in evaluated.outcome.results.values():
        assert row["status"] == status.REWARD_HACK
        assert "malformed profile report" in row["message"]
        assert "profile" not in row


KERNEL = {"name": "k", "kind": "kernel", "calls": 3, "total_ms": 0.3, "mean_ms": 0.1, "grid": [8, 1, 1],
          "block": [256, 1, 1], "registers_per_thread": 32, "shared_memory_bytes": 0}
GOOD: dict[str, Any] = {"tool": "torch_profiler", "device": "cuda", "calls": 3, "truncated": False,
                        "kernels": [KERNEL]}


def _with(**kernel: Any) -> dict[str, Any]:
    return {**GOOD, "kernels": [{**GOOD["kernels"][0], **kernel}]}


@pytest.mark.parametrize("raw", [
    None, [], {**GOOD, "calls": 99}, {**GOOD, "tool": "ncu"}, {**GOOD, "truncated": "no"},
    {**GOOD, "kernels": GOOD["kernels"] * (profiling.MAX_KERNELS + 1)},
    _with(total_ms=float("nan")), _with(total_ms=float("inf")), _with(mean_ms=-1.0), _with(total_ms="1"),
    _with(calls=0), _with(calls=True), _with(name=7), _with(kind="magic"), _with(grid=[1, 2, 3, 4]),
    _with(block="256"), _with(registers_per_thread=-1), _with(shared_memory_bytes=1.5),
])
def test_the_reporter_refuses_a_malformed_profile(raw: Any) -> None:
    with pytest.raises(ValueError):
        profiling.validate(raw, 3, profiling.TORCH)


def test_the_reporter_keeps_a_well_formed_profile_and_cuts_long_names() -> None:
    assert profiling.validate(GOOD, 3, profiling.TORCH) == GOOD
    cut = profiling.validate(_with(name="k" * 5000), 3, profiling.TORCH)
    assert cut["kernels"][0]["name"] == "k" * profiling.MAX_NAME
