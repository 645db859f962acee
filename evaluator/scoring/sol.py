"""The work a workload must do: FLOPs and bytes. Each comes from the definition's `sol`
expression where it has one; otherwise FLOPs are those counted from the reference
(evaluator/harness/flops.py, done once at sync and stored) and bytes are every input read once and
every output written once. FLOPs that could not be counted are 0: the bound is the memory one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evaluator.harness import expr
from evaluator.harness.flops import FlopCount
from evaluator.harness.problem import Definition

ITEM_BYTES = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1,
    "float8_e5m2": 1, "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}

# Where a figure came from.
FROM_DEFINITION = "definition"  # the definition's sol expression
FROM_REFERENCE = "reference"  # FLOPs counted from the reference
FROM_TENSORS = "tensors"  # bytes of the inputs and outputs
NOT_COUNTED = "none"  # FLOPs that could not be counted (0): a memory-only bound


@dataclass(frozen=True)
class WorkloadWork:
    flops: float
    bytes: float
    dtype: str  # the dtype whose peak bounds the compute
    flops_from: str
    bytes_from: str
    note: str = ""  # why FLOPs were not counted


def workload_work(
    definition: Definition, var_axes: Mapping[str, int], counted: FlopCount | None = None
) -> WorkloadWork:
    """`counted`: the reference's FLOPs for these axes, used where the definition has no
    `sol.flops`; None where nobody counted them."""
    axes = definition.resolve_axes(var_axes)
    sol = definition.sol
    dtype = (sol.dtype if sol and sol.dtype else None) or _first_float_dtype(definition)
    if sol and sol.bytes:
        nbytes, bytes_from = float(expr.evaluate(sol.bytes, axes)), FROM_DEFINITION
    else:
        nbytes, bytes_from = tensor_bytes(definition, axes), FROM_TENSORS
    if sol and sol.flops:
        return WorkloadWork(float(expr.evaluate(sol.flops, axes)), nbytes, dtype, FROM_DEFINITION, bytes_from)
    if counted is not None and counted.flops is not None:
        return WorkloadWork(counted.flops, nbytes, dtype, FROM_REFERENCE, bytes_from)
    note = counted.reason if counted is not None else "not counted"
    return WorkloadWork(0.0, nbytes, dtype, NOT_COUNTED, bytes_from, note)


def tensor_bytes(definition: Definition, axes: Mapping[str, int]) -> float:
    total = 0
    for spec in [*definition.inputs.values(), *definition.outputs.values()]:
        if spec.is_scalar:
            continue
        count = 1
        for size in definition.shape(spec, axes):
            count *= size
        total += count * ITEM_BYTES[spec.dtype]
    return float(total)


def _first_float_dtype(definition: Definition) -> str:
    for spec in [*definition.inputs.values(), *definition.outputs.values()]:
        if spec.dtype.startswith(("float", "bfloat")):
            return spec.dtype
    return "float32"
