"""Results as SOL-ExecBench traces (their docs/trace.md): one record per workload run, with the
definition's and solution's names, the workload (uuid, axes, input descriptors, tolerance) and its
evaluation (status, log, correctness, performance, environment, timestamp).

No Django here: `solarena eval --trace-out` builds records from its report, the API from stored
results (evaluator/stored_traces.py). docs/result-format.md, "SOL-ExecBench traces", maps each
field to ours.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from evaluator.harness import status

# Ours to theirs. The two sets are the same nine verdicts; the table makes a new verdict of ours
# an error here rather than a record their loader refuses.
STATUSES: dict[str, str] = {
    status.PASSED: "PASSED",
    status.INCORRECT_SHAPE: "INCORRECT_SHAPE",
    status.INCORRECT_DTYPE: "INCORRECT_DTYPE",
    status.INCORRECT_NUMERICAL: "INCORRECT_NUMERICAL",
    status.RUNTIME_ERROR: "RUNTIME_ERROR",
    status.COMPILE_ERROR: "COMPILE_ERROR",
    status.TIMEOUT: "TIMEOUT",
    status.REWARD_HACK: "REWARD_HACK",
    status.INVALID_REFERENCE: "INVALID_REFERENCE",
}
# Their rule: correctness only with these verdicts, performance only with PASSED; null otherwise.
WITH_CORRECTNESS = ("PASSED", "INCORRECT_NUMERICAL")
WITH_PERFORMANCE = ("PASSED",)
# The fields each kind of input descriptor has in their format; ours may carry more (a random
# input's distribution), which their format cannot say and their loader would drop.
INPUT_FIELDS: dict[str, tuple[str, ...]] = {
    "random": ("type",),
    "scalar": ("type", "value"),
    "safetensors": ("type", "path", "tensor_key"),
    "custom": ("type",),
}
TOLERANCE_FIELDS = {"atol": "max_atol", "rtol": "max_rtol",
                    "required_matched_ratio": "required_matched_ratio"}
LIBRARIES = ("torch", "triton", "cuda", "driver", "python")  # from our environment, when known
CORRECTNESS_EXTRA = ("rounds", "min_matched_ratio")  # our figures beyond theirs
MEDIA_TYPE = "application/x-ndjson"


class TraceError(ValueError):
    """A result or workload that cannot be written as a trace; the message says which and why."""


def trace_record(
    *,
    definition: str,
    solution: str,
    workload: Mapping[str, Any],
    result: Mapping[str, Any],
    environment: Mapping[str, Any],
    timestamp: str,
) -> dict[str, Any]:
    """One workload's trace. `workload`: uuid, axes, inputs, tolerance (as stored); `result`: a
    report row or stored result (status, message, latencies, correctness); `environment`: a
    trace environment (trace_environment)."""
    if not definition:
        raise TraceError("a trace needs the definition's name")
    if not solution:
        raise TraceError("a trace needs the solution's name")
    return {
        "definition": definition,
        "solution": solution,
        "workload": trace_workload(workload),
        "evaluation": trace_evaluation(result, environment, timestamp, where=str(workload.get("uuid"))),
    }


def trace_workload(workload: Mapping[str, Any]) -> dict[str, Any]:
    uuid = workload.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        raise TraceError(f"workload {uuid!r}: needs a non-empty uuid")
    axes = workload.get("axes")
    if not isinstance(axes, Mapping) or not all(type(v) is int and v >= 0 for v in axes.values()):
        raise TraceError(f"workload {uuid}: axes must map names to non-negative integers")
    inputs = workload.get("inputs")
    if not isinstance(inputs, Mapping):
        raise TraceError(f"workload {uuid}: inputs must map input names to descriptors")
    tolerance = workload.get("tolerance") or {}
    return {
        "uuid": uuid,
        "axes": dict(axes),
        "inputs": {name: _input(desc, f"workload {uuid}: input {name!r}") for name, desc in inputs.items()},
        "tolerance": {theirs: float(tolerance[ours]) for ours, theirs in TOLERANCE_FIELDS.items()
                      if ours in tolerance},
    }


def _input(desc: Any, where: str) -> dict[str, Any]:
    kind = desc.get("type") if isinstance(desc, Mapping) else None
    if kind not in INPUT_FIELDS:
        raise TraceError(f"{where}: type {kind!r} is not one of {', '.join(INPUT_FIELDS)}")
    missing = [f for f in INPUT_FIELDS[kind] if f not in desc]
    if missing:
        raise TraceError(f"{where}: a {kind} input needs {', '.join(missing)}")
    return {f: desc[f] for f in INPUT_FIELDS[kind]}


def trace_evaluation(
    result: Mapping[str, Any], environment: Mapping[str, Any], timestamp: str, where: str = "result"
) -> dict[str, Any]:
    verdict = STATUSES.get(str(result.get("status")))
    if verdict is None:
        raise TraceError(f"{where}: status {result.get('status')!r} is not one of {', '.join(STATUSES)}")
    if not timestamp:
        raise TraceError(f"{where}: a trace needs the time it was evaluated")
    return {
        "status": verdict,
        "log": str(result.get("message") or ""),
        "correctness": _correctness(result.get("correctness")) if verdict in WITH_CORRECTNESS else None,
        "performance": _performance(result) if verdict in WITH_PERFORMANCE else None,
        "environment": dict(environment),
        "timestamp": timestamp,
    }


def _correctness(figures: Any) -> dict[str, Any]:
    figures = figures if isinstance(figures, Mapping) else {}
    extra = {key: figures[key] for key in CORRECTNESS_EXTRA if key in figures}
    # results stored before a figure was measured, or a verdict without figures, read 0 (their
    # default); extra says which
    unmeasured = [theirs for ours, theirs in (("max_abs_error", "max_absolute_error"),
                                              ("max_rel_error", "max_relative_error"))
                  if not _is_number(figures.get(ours))]
    if unmeasured:
        extra["not_measured"] = unmeasured
    return {
        "max_relative_error": _finite(figures.get("max_rel_error")),
        "max_absolute_error": _finite(figures.get("max_abs_error")),
        "has_nan": figures.get("has_nan") is True,
        "has_inf": figures.get("has_inf") is True,
        "extra": extra or None,
    }


def _performance(result: Mapping[str, Any]) -> dict[str, float]:
    latency = _finite(result.get("latency_ms"))
    reference = _finite(result.get("reference_latency_ms"))
    return {
        "latency_ms": latency,
        "reference_latency_ms": reference,
        "speedup_factor": _finite(reference / latency) if latency > 0 and reference > 0 else 0.0,
    }


def trace_environment(environment: Mapping[str, Any], hardware_name: str) -> dict[str, Any]:
    """Their environment from ours (evaluator/harness/environment.py): the GPU's name as the device
    reports it (`hardware_name`, the hardware row's, where the run had no GPU) and library versions."""
    gpu = environment.get("gpu")
    hardware = gpu if isinstance(gpu, str) and gpu else hardware_name
    if not hardware:
        raise TraceError("a trace's environment needs the hardware's name")
    libs = {name: str(environment[name]) for name in LIBRARIES
            if isinstance(environment.get(name), (str, int, float)) and str(environment[name])}
    return {"hardware": hardware, "libs": libs}


def report_traces(
    report: Mapping[str, Any],
    workloads: Iterable[Mapping[str, Any]],
    *,
    solution: str,
    hardware_name: str,
    timestamp: str,
) -> list[dict[str, Any]]:
    """The traces of a report as evaluator/scoring/report.py builds it (`solarena eval --json`), in its row
    order; `workloads` are the run's workloads as Workload.to_json() gives them."""
    by_uuid = {w.get("uuid"): w for w in workloads}
    environment = trace_environment(report.get("environment") or {}, hardware_name)
    records = []
    for row in report.get("workloads", []):
        workload = by_uuid.get(row.get("uuid"))
        if workload is None:
            raise TraceError(f"the report's workload {row.get('uuid')!r} is not among the workloads run")
        if not row.get("message") and report.get("solution_error"):
            row = {**row, "message": report["solution_error"]}
        records.append(trace_record(definition=str(report.get("problem") or ""), solution=solution,
                                    workload=workload, result=row, environment=environment,
                                    timestamp=timestamp))
    return records


def solution_name(files: Mapping[str, str], entry: str, default: str) -> str:
    """A SOL-ExecBench solution.json's own `name`; otherwise `default`."""
    if entry.endswith(".json") and entry in files:
        try:
            name = json.loads(files[entry]).get("name")
        except (ValueError, AttributeError):
            name = None
        if isinstance(name, str) and name.strip():
            return name.strip()
    return default


def iso_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 in UTC with a Z, as their example writes it."""
    moment = (moment or datetime.now(UTC)).astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(record, allow_nan=False) + "\n" for record in records)


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _finite(value: Any) -> float:
    """A non-negative finite float (JSON has no infinity): None reads 0, infinity the largest float."""
    if not _is_number(value) or math.isnan(value) or value < 0:
        return 0.0
    return float(min(value, sys.float_info.max))
