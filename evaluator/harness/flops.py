"""FLOPs of a workload counted from the problem's reference, for definitions that give no `sol.flops`.

The reference's `run` is called on fake tensors (shapes and dtypes only, nothing allocated, no
GPU needed) under torch's FlopCounterMode. What that counts: matrix products (mm, addmm, bmm,
baddbmm, _scaled_mm, and whatever decomposes into them: matmul, einsum, linear), convolutions and
attention (scaled_dot_product_attention, flash / efficient / cuDNN attention, flex_attention), at
2 FLOPs a multiply-add. What it does not count: elementwise arithmetic, reductions, softmax,
normalizations, activations, and the masked-out half of causal attention (it counts the full
square). A reference that cannot run on fake tensors (data-dependent shapes, `.item()`, a module
it cannot import) gives no count and a reason instead; callers fall back to the memory bound.

Importing this module does not import torch: the web side reads FlopCount without it.
"""

from __future__ import annotations

import functools
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .problem import Definition, TensorSpec

# The meta device: attention decomposes there into counted matrix products (on the CPU device it
# becomes a fused CPU kernel the counter does not know), and unlike fake CUDA tensors it works on
# a CPU-only PyTorch.
DEVICE = "meta"
# A reference is a handful of operators per workload; a Python loop over a large axis is not,
# and must not stall whoever asked for the bound.
MAX_OPERATORS = 20_000
MAX_SECONDS = 20.0
FLOAT_DTYPES = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")

Argument = tuple[str, str, Any]  # ("tensor", dtype, shape) or ("scalar", dtype, value)


@dataclass(frozen=True)
class FlopCount:
    flops: float | None  # None: not counted, see `reason`
    reason: str = ""


def count_reference_flops(
    definition: Definition, var_axes: Mapping[str, int], inputs: Mapping[str, Any] | None = None
) -> FlopCount:
    """FLOPs of the reference's `run` on one workload (`var_axes`, and `inputs` for scalar values).
    Never raises: a failure is a FlopCount without flops and with the reason. Cached per
    (reference, argument shapes and scalar values)."""
    try:
        axes = definition.resolve_axes(var_axes)
        arguments = tuple(_argument(spec, definition, axes, (inputs or {}).get(name))
                          for name, spec in definition.inputs.items())
    except Exception as exc:  # an axis missing or an expression that does not evaluate
        return FlopCount(None, f"the workload's axes do not resolve: {_describe(exc)}")
    return _count(definition.reference, arguments)


def _argument(spec: TensorSpec, definition: Definition, axes: Mapping[str, int], given: Any) -> Argument:
    if not spec.is_scalar:
        return ("tensor", spec.dtype, definition.shape(spec, axes))
    value = given.get("value", 1) if isinstance(given, Mapping) else 1  # custom inputs: any value
    if spec.dtype == "bool":
        return ("scalar", spec.dtype, bool(value))
    return ("scalar", spec.dtype, float(value) if spec.dtype in FLOAT_DTYPES else int(value))


@functools.lru_cache(maxsize=4096)
def _count(reference: str, arguments: tuple[Argument, ...]) -> FlopCount:
    try:
        import torch
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return FlopCount(None, "PyTorch was not installed where the FLOPs were to be counted")
    try:
        run = _reference_run(reference)
        with torch.no_grad(), FakeTensorMode(allow_non_fake_inputs=True):
            args = [torch.empty(value, dtype=getattr(torch, dtype), device=DEVICE) if kind == "tensor"
                    else value for kind, dtype, value in arguments]
            with FlopCounterMode(display=False) as counter, _budget():
                run(*args)
        return FlopCount(float(counter.get_total_flops()))
    except Exception as exc:
        return FlopCount(None, f"the reference did not run on fake tensors: {_describe(exc)}")


@functools.lru_cache(maxsize=64)
def _reference_run(source: str) -> Callable[..., Any]:
    """The reference's `run`, imported from a file of its own (Triton reads kernel sources)."""
    from .modules import import_file

    name = f"solarena_flops_reference_{abs(hash(source)):x}"
    with tempfile.TemporaryDirectory(prefix="solarena-flops-") as directory:
        path = Path(directory) / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        try:
            module = import_file(path, name)
        finally:
            sys.modules.pop(name, None)
    run = getattr(module, "run", None)
    if not callable(run):
        raise ValueError("the reference defines no function run(...)")
    return run


def _budget() -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    class Budget(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.left, self.deadline = MAX_OPERATORS, time.monotonic() + MAX_SECONDS

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.left -= 1
            if self.left < 0 or time.monotonic() > self.deadline:
                raise RuntimeError(f"more than {MAX_OPERATORS} operators or {MAX_SECONDS:g} s")
            return func(*args, **(kwargs or {}))

    return Budget()


def _describe(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}"[:240]
