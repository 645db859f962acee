"""The work a workload must do: FLOPs and bytes, from the definition's `sol` expressions or,
where a definition gives none, derived (bytes: every input read once and every output written
once; FLOPs: none counted, so the bound is the memory one)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evaluator.harness import expr
from evaluator.harness.problem import Definition

ITEM_BYTES = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1,
    "float8_e5m2": 1, "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}


@dataclass(frozen=True)
class WorkloadWork:
    flops: float
    bytes: float
    dtype: str  # the dtype whose peak bounds the compute
    derived: bool  # True where the definition gave no expression for flops or bytes


def workload_work(definition: Definition, var_axes: Mapping[str, int]) -> WorkloadWork:
    axes = definition.resolve_axes(var_axes)
    sol = definition.sol
    flops_expr = sol.flops if sol else None
    bytes_expr = sol.bytes if sol else None
    flops = float(expr.evaluate(flops_expr, axes)) if flops_expr else 0.0
    nbytes = float(expr.evaluate(bytes_expr, axes)) if bytes_expr else tensor_bytes(definition, axes)
    dtype = (sol.dtype if sol and sol.dtype else None) or _first_float_dtype(definition)
    return WorkloadWork(flops, nbytes, dtype, derived=not (flops_expr and bytes_expr))


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
