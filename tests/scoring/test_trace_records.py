"""Results become SOL-ExecBench trace records (evaluator/traces.py) that keep to their format
field by field (tests/trace_format.py), for every verdict, and bad input is refused by name."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from evaluator import traces
from evaluator.harness import status
from tests import trace_format

WORKLOAD = {"uuid": "rows4_cols8", "axes": {"rows": 4, "cols": 8},
            "inputs": {"x": {"type": "random", "distribution": "uniform", "low": -3, "high": 3},
                       "scale": {"type": "scalar", "value": 0.5}},
            "tolerance": {"atol": 1e-5, "rtol": 1e-4, "required_matched_ratio": 0.99}}
ENVIRONMENT = {"device": "cuda", "gpu": "NVIDIA H200", "torch": "2.6.0", "triton": "3.2.0", "cuda": "12.6",
               "driver": "570.86", "python": "3.11.7", "triton_interpret": False, "cpu_count": 16,
               "host": "worker-3"}
PASSED_ROW = {"status": "PASSED", "message": "", "latency_ms": 0.01, "reference_latency_ms": 0.04,
              "baseline_latency_ms": 0.02, "sol_ms": 0.005, "score": 0.7,
              "correctness": {"rounds": 3, "max_abs_error": 2e-6, "max_rel_error": 1e-5,
                              "min_matched_ratio": 1.0}}


def record(result: dict[str, Any], workload: dict[str, Any] = WORKLOAD) -> dict[str, Any]:
    return traces.trace_record(definition="scale_shift", solution="mine", workload=workload, result=result,
                               environment=traces.trace_environment(ENVIRONMENT, "NVIDIA H200"),
                               timestamp="2026-12-01T10:00:00.000Z")


@pytest.mark.parametrize("verdict", status.ALL)
def test_every_verdict_of_ours_is_theirs_and_keeps_the_nullable_table(verdict: str) -> None:
    result = {**PASSED_ROW, "status": verdict, "message": "" if verdict == status.PASSED else "why"}
    trace = record(result)
    assert trace_format.problems(trace) == []
    assert trace["evaluation"]["status"] == verdict
    assert (trace["evaluation"]["correctness"] is None) == (verdict not in trace_format.NEEDS_CORRECTNESS)
    assert (trace["evaluation"]["performance"] is None) == (verdict not in trace_format.NEEDS_PERFORMANCE)


def test_the_verdict_sets_are_the_same() -> None:
    assert set(traces.STATUSES) == set(status.ALL)
    assert set(traces.STATUSES.values()) == set(trace_format.STATUSES)


def test_passed_record_carries_times_speedup_errors_and_environment() -> None:
    evaluation = record(PASSED_ROW)["evaluation"]
    assert evaluation["performance"] == {"latency_ms": 0.01, "reference_latency_ms": 0.04,
                                         "speedup_factor": pytest.approx(4.0)}
    assert evaluation["correctness"] == {"max_relative_error": 1e-5, "max_absolute_error": 2e-6,
                                         "has_nan": False, "has_inf": False,
                                         "extra": {"rounds": 3, "min_matched_ratio": 1.0}}
    assert evaluation["environment"] == {"hardware": "NVIDIA H200", "libs": {
        "torch": "2.6.0", "triton": "3.2.0", "cuda": "12.6", "driver": "570.86", "python": "3.11.7"}}
    assert evaluation["log"] == ""


def test_workload_keeps_only_the_fields_of_their_format() -> None:
    workload = record(PASSED_ROW)["workload"]
    assert workload == {"uuid": "rows4_cols8", "axes": {"rows": 4, "cols": 8},
                        "inputs": {"x": {"type": "random"}, "scale": {"type": "scalar", "value": 0.5}},
                        "tolerance": {"max_atol": 1e-5, "max_rtol": 1e-4, "required_matched_ratio": 0.99}}
    stored = {**WORKLOAD, "inputs": {"x": {"type": "safetensors", "path": "data/x.safetensors",
                                           "tensor_key": "x"}}}
    assert record(PASSED_ROW, stored)["workload"]["inputs"] == {
        "x": {"type": "safetensors", "path": "data/x.safetensors", "tensor_key": "x"}}


def test_wrong_output_keeps_its_error_figures() -> None:
    row = {"status": "INCORRECT_NUMERICAL", "message": "round 1: output 'y': 0.00% of elements ...",
           "latency_ms": None, "reference_latency_ms": None,
           "correctness": {"max_abs_error": 0.0, "max_rel_error": 0.0, "min_matched_ratio": 0.999,
                           "has_nan": True, "has_inf": False}}
    evaluation = record(row)["evaluation"]
    assert evaluation["correctness"]["has_nan"] is True
    assert evaluation["correctness"]["extra"] == {"min_matched_ratio": 0.999}
    assert evaluation["performance"] is None
    assert evaluation["log"].startswith("round 1")


def test_figures_not_measured_read_zero_and_say_so() -> None:
    old = {**PASSED_ROW, "correctness": {"rounds": 3, "max_abs_error": 1e-6, "min_matched_ratio": 1.0}}
    correctness = record(old)["evaluation"]["correctness"]
    assert correctness["max_relative_error"] == 0.0
    assert correctness["extra"]["not_measured"] == ["max_relative_error"]
    bare = record({"status": "INCORRECT_NUMERICAL", "message": "wrong"})["evaluation"]["correctness"]
    assert bare["extra"] == {"not_measured": ["max_absolute_error", "max_relative_error"]}


def test_numbers_are_always_finite_json() -> None:
    row = {**PASSED_ROW, "latency_ms": 0.0, "correctness": {"max_abs_error": float("inf"),
                                                            "max_rel_error": float("nan")}}
    trace = record(row)
    assert trace["evaluation"]["performance"]["speedup_factor"] == 0.0
    assert trace_format.problems(trace) == []
    json.loads(traces.to_jsonl([trace]))  # allow_nan=False did not raise


def test_environment_without_a_gpu_names_the_hardware_row() -> None:
    environment = traces.trace_environment({"device": "cpu", "gpu": None, "torch": "2.6.0+cpu",
                                            "triton": None}, "Generic CPU (Triton interpreter)")
    assert environment == {"hardware": "Generic CPU (Triton interpreter)", "libs": {"torch": "2.6.0+cpu"}}


@pytest.mark.parametrize(("result", "workload", "message"), [
    ({"status": "CRASHED"}, WORKLOAD, "status 'CRASHED' is not one of PASSED"),
    (PASSED_ROW, {**WORKLOAD, "uuid": ""}, "needs a non-empty uuid"),
    (PASSED_ROW, {**WORKLOAD, "axes": {"rows": -1}}, "axes must map names to non-negative integers"),
    (PASSED_ROW, {**WORKLOAD, "inputs": {"x": {"type": "url"}}}, "input 'x': type 'url' is not one of"),
    (PASSED_ROW, {**WORKLOAD, "inputs": {"x": {"type": "safetensors", "path": "a"}}},
     "a safetensors input needs tensor_key"),
])
def test_bad_input_is_refused_with_the_reason(result: dict[str, Any], workload: dict[str, Any],
                                              message: str) -> None:
    with pytest.raises(traces.TraceError, match=message):
        record(result, workload)


def test_names_and_time_are_required() -> None:
    environment = traces.trace_environment(ENVIRONMENT, "h200")
    with pytest.raises(traces.TraceError, match="definition's name"):
        traces.trace_record(definition="", solution="s", workload=WORKLOAD, result=PASSED_ROW,
                            environment=environment, timestamp="2026-12-01T10:00:00Z")
    with pytest.raises(traces.TraceError, match="time it was evaluated"):
        traces.trace_record(definition="d", solution="s", workload=WORKLOAD, result=PASSED_ROW,
                            environment=environment, timestamp="")
    with pytest.raises(traces.TraceError, match="hardware's name"):
        traces.trace_environment({"gpu": None}, "")


def test_report_traces_follow_the_report_and_its_solution_error() -> None:
    report = {"problem": "scale_shift", "environment": ENVIRONMENT, "solution_error": "SyntaxError: line 3",
              "workloads": [{"uuid": "rows4_cols8", "status": "COMPILE_ERROR", "message": ""}]}
    records = traces.report_traces(report, [WORKLOAD], solution="mine", hardware_name="h200",
                                   timestamp="2026-12-01T10:00:00Z")
    assert [r["evaluation"]["log"] for r in records] == ["SyntaxError: line 3"]
    with pytest.raises(traces.TraceError, match="'rows4_cols8' is not among the workloads run"):
        traces.report_traces(report, [], solution="mine", hardware_name="h200", timestamp="t")


def test_solution_name_is_the_solution_json_name_or_the_default() -> None:
    files = {"solution.json": json.dumps({"name": "rmsnorm_triton_v1"}), "kernel.py": ""}
    assert traces.solution_name(files, "solution.json", "submission-3") == "rmsnorm_triton_v1"
    assert traces.solution_name({"solution.json": "[1]"}, "solution.json", "submission-3") == "submission-3"
    assert traces.solution_name({"main.py": ""}, "main.py", "main") == "main"


def test_timestamp_is_iso_8601_in_utc() -> None:
    moment = datetime(2026, 12, 1, 12, 45, tzinfo=timezone(timedelta(hours=2)))
    assert traces.iso_timestamp(moment) == "2026-12-01T10:45:00.000Z"


@pytest.mark.parametrize(("path", "value", "problem"), [
    (("evaluation", "status"), "OK", "is not one of"),
    (("evaluation", "performance"), None, "performance: missing with status PASSED"),
    (("evaluation", "timestamp"), 1, "timestamp: integer, expected string"),
    (("workload", "axes"), {"rows": 2.5}, "not a non-negative integer"),
    (("workload", "inputs"), {"x": {"type": "random", "seed": 1}}, "unknown field 'seed'"),
    (("evaluation", "environment"), {"libs": {}}, "hardware: missing"),
])
def test_the_field_list_catches_a_broken_record(path: tuple[str, str], value: Any, problem: str) -> None:
    """The check the exports are held to is not vacuous."""
    trace = record(PASSED_ROW)
    trace[path[0]][path[1]] = value
    assert any(problem in p for p in trace_format.problems(trace)), trace_format.problems(trace)
