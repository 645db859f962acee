"""SOL-ExecBench's trace format as data, transcribed from their docs/trace.md and the models of
src/sol_execbench/core/data/trace.py and workload.py: each object's fields with the JSON types
allowed and whether the field is required. `problems(record)` lists every way a record breaks it;
our exports also carry no field the format lacks, so it checks for unknown ones too."""

from __future__ import annotations

from typing import Any

STRING, NUMBER, INTEGER, BOOLEAN, OBJECT, NULL = "string", "number", "integer", "boolean", "object", "null"
STATUSES = ("PASSED", "INVALID_REFERENCE", "INCORRECT_SHAPE", "INCORRECT_NUMERICAL", "INCORRECT_DTYPE",
            "RUNTIME_ERROR", "COMPILE_ERROR", "TIMEOUT", "REWARD_HACK")
INPUT_TYPES = ("random", "scalar", "safetensors", "custom")

# object -> field -> (JSON types, required)
Fields = dict[str, tuple[tuple[str, ...], bool]]
TRACE: Fields = {
    "definition": ((STRING,), True),
    "solution": ((STRING, NULL), False),  # null only in a workload-only trace
    "workload": ((OBJECT,), True),
    "evaluation": ((OBJECT, NULL), False),
}
WORKLOAD: Fields = {
    "uuid": ((STRING,), True),
    "axes": ((OBJECT,), True),
    "inputs": ((OBJECT,), True),
    "tolerance": ((OBJECT,), False),
}
TOLERANCE: Fields = {
    "max_atol": ((NUMBER,), False),
    "max_rtol": ((NUMBER,), False),
    "required_matched_ratio": ((NUMBER,), False),
    "max_error_cap": ((NUMBER, NULL), False),
    "allow_negative_inf": ((BOOLEAN,), False),
}
INPUTS: dict[str, Fields] = {
    "random": {"type": ((STRING,), True)},
    "scalar": {"type": ((STRING,), True), "value": ((INTEGER, NUMBER, BOOLEAN), True)},
    "safetensors": {"type": ((STRING,), True), "path": ((STRING,), True), "tensor_key": ((STRING,), True)},
    "custom": {"type": ((STRING,), True)},
}
EVALUATION: Fields = {
    "status": ((STRING,), True),
    "log": ((STRING,), False),
    "correctness": ((OBJECT, NULL), False),
    "performance": ((OBJECT, NULL), False),
    "environment": ((OBJECT,), True),
    "timestamp": ((STRING,), True),
}
CORRECTNESS: Fields = {
    "max_relative_error": ((NUMBER,), True),
    "max_absolute_error": ((NUMBER,), True),
    "has_nan": ((BOOLEAN,), False),
    "has_inf": ((BOOLEAN,), False),
    "extra": ((OBJECT, NULL), False),
}
PERFORMANCE: Fields = {
    "latency_ms": ((NUMBER,), True),
    "reference_latency_ms": ((NUMBER,), True),
    "speedup_factor": ((NUMBER,), True),
}
ENVIRONMENT: Fields = {
    "hardware": ((STRING,), True),
    "libs": ((OBJECT,), True),
}
# The nullable table: which verdicts must have correctness and performance (all others: null).
NEEDS_CORRECTNESS = ("PASSED", "INCORRECT_NUMERICAL")
NEEDS_PERFORMANCE = ("PASSED",)
NON_NEGATIVE = {("correctness", "max_relative_error"), ("correctness", "max_absolute_error"),
                ("performance", "latency_ms"), ("performance", "reference_latency_ms"),
                ("performance", "speedup_factor")}


def json_type(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    return {float: NUMBER, str: STRING, dict: OBJECT, list: "array"}.get(type(value), type(value).__name__)


def check_object(value: Any, fields: Fields, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: not an object"]
    found = [f"{where}: unknown field {name!r}" for name in value if name not in fields]
    for name, (types, required) in fields.items():
        if name not in value:
            if required:
                found.append(f"{where}.{name}: missing")
            continue
        kind = json_type(value[name])
        if kind not in types and not (kind == INTEGER and NUMBER in types):  # JSON numbers include integers
            found.append(f"{where}.{name}: {kind}, expected {' or '.join(types)}")
        elif kind == STRING and NULL not in types and not value[name] and name != "log":
            found.append(f"{where}.{name}: empty")
    return found


def problems(record: Any) -> list[str]:
    found = check_object(record, TRACE, "trace")
    if found:
        return found
    found += _workload_problems(record["workload"])
    evaluation = record.get("evaluation")
    if evaluation is not None:
        found += _evaluation_problems(evaluation)
    return found


def _workload_problems(workload: dict[str, Any]) -> list[str]:
    found = check_object(workload, WORKLOAD, "workload")
    if found:
        return found
    found += [f"workload.axes.{name}: {value!r} is not a non-negative integer"
              for name, value in workload["axes"].items() if json_type(value) != INTEGER or value < 0]
    if "tolerance" in workload:
        found += check_object(workload["tolerance"], TOLERANCE, "workload.tolerance")
    kinds = set()
    for name, desc in workload["inputs"].items():
        kind = desc.get("type") if isinstance(desc, dict) else None
        if kind not in INPUTS:
            found.append(f"workload.inputs.{name}.type: {kind!r} is not one of {INPUT_TYPES}")
            continue
        kinds.add(kind)
        found += check_object(desc, INPUTS[kind], f"workload.inputs.{name}")
    if "custom" in kinds and len(kinds) > 1:
        found.append("workload.inputs: custom inputs mixed with others")
    return found


def _evaluation_problems(evaluation: dict[str, Any]) -> list[str]:
    found = check_object(evaluation, EVALUATION, "evaluation")
    if found:
        return found
    verdict = evaluation["status"]
    if verdict not in STATUSES:
        return [f"evaluation.status: {verdict!r} is not one of {STATUSES}"]
    found += check_object(evaluation["environment"], ENVIRONMENT, "evaluation.environment")
    libs = evaluation["environment"].get("libs")
    if isinstance(libs, dict):
        found += [f"evaluation.environment.libs.{k}: not a string" for k, v in libs.items()
                  if not isinstance(v, str)]
    for part, fields, needed in (("correctness", CORRECTNESS, NEEDS_CORRECTNESS),
                                 ("performance", PERFORMANCE, NEEDS_PERFORMANCE)):
        value = evaluation.get(part)
        if (value is not None) != (verdict in needed):
            state = "missing" if value is None else "present"
            found.append(f"evaluation.{part}: {state} with status {verdict}")
        if value is not None:
            found += check_object(value, fields, f"evaluation.{part}")
            found += [f"evaluation.{part}.{name}: negative" for (p, name) in NON_NEGATIVE
                      if p == part and isinstance(value.get(name), (int, float)) and value[name] < 0]
    return found
