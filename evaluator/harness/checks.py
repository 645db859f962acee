"""Checking a solution's outputs against the reference's."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch

from . import status
from .inputs import torch_dtype
from .problem import TensorSpec, Tolerance


@dataclass(frozen=True)
class CheckResult:
    status: str
    message: str = ""
    max_abs_error: float | None = None
    matched_ratio: float | None = None
    max_rel_error: float | None = None  # |out-ref| / max(|ref|, atol), SOL-ExecBench's measure
    has_nan: bool = False  # NaN in the output where the reference is finite
    has_inf: bool = False  # Inf (and no NaN) in the output where the reference is finite

    @property
    def ok(self) -> bool:
        return self.status == status.PASSED

    def error_figures(self) -> dict[str, Any] | None:
        """How wrong a numerically wrong output was (None for any other verdict); with NaN or Inf
        in it the errors mean nothing and read 0."""
        if self.status != status.INCORRECT_NUMERICAL:
            return None
        return {"max_abs_error": self.max_abs_error or 0.0, "max_rel_error": self.max_rel_error or 0.0,
                "min_matched_ratio": self.matched_ratio, "has_nan": self.has_nan,
                "has_inf": self.has_inf}


def as_output_list(result: Any, count: int) -> list[Any] | CheckResult:
    """The outputs of run(...) as a list, or the check failure that explains why not."""
    if count == 1 and not isinstance(result, (tuple, list)):
        return [result]
    if not isinstance(result, (tuple, list)):
        return CheckResult(status.INCORRECT_SHAPE,
                           f"run returned {type(result).__name__}, expected {count} outputs")
    if len(result) != count:
        return CheckResult(status.INCORRECT_SHAPE,
                           f"run returned {len(result)} outputs, expected {count}")
    return list(result)


def check_outputs(
    outputs: Sequence[Any],
    expected: Sequence[torch.Tensor],
    specs: Sequence[TensorSpec],
    tolerance: Tolerance,
) -> CheckResult:
    worst: CheckResult | None = None
    max_abs = max_rel = 0.0
    for out, ref, spec in zip(outputs, expected, specs, strict=False):
        result = check_tensor(out, ref, spec, tolerance)
        if not result.ok:
            return result
        if worst is None or (result.matched_ratio or 1) < (worst.matched_ratio or 1):
            worst = result
        max_abs = max(max_abs, result.max_abs_error or 0.0)
        max_rel = max(max_rel, result.max_rel_error or 0.0)
    if worst is None:
        return CheckResult(status.PASSED)
    return replace(worst, max_abs_error=max_abs, max_rel_error=max_rel)  # the largest over outputs


def check_tensor(out: Any, ref: torch.Tensor, spec: TensorSpec, tol: Tolerance) -> CheckResult:
    form = check_structure(out, spec, tuple(ref.shape), ref.device)
    return form if not form.ok else compare_values(out, ref, spec.name, tol)


def check_structure(out: Any, spec: TensorSpec, shape: tuple[int, ...], device: torch.device) -> CheckResult:
    """An output must be exactly a torch.Tensor with real storage, of the right device, shape, dtype."""
    name = spec.name
    if type(out) is not torch.Tensor:
        kind = type(out).__module__ + "." + type(out).__qualname__
        if isinstance(out, torch.Tensor):
            return CheckResult(status.REWARD_HACK,
                               f"output {name!r} is a {kind}, a subclass of torch.Tensor; "
                               "outputs must be plain tensors")
        if _pretends(out):
            return CheckResult(status.REWARD_HACK,
                               f"output {name!r} is a {kind}, an object of the solution's own that "
                               "acts like a tensor; outputs must be plain tensors")
        return CheckResult(status.INCORRECT_DTYPE, f"output {name!r} is a {kind}, not a tensor")
    if out.device.type != device.type or (device.index is not None and out.device.index != device.index):
        return CheckResult(status.RUNTIME_ERROR, f"output {name!r} is on {out.device}, expected {device}")
    if out.numel() and out.untyped_storage().data_ptr() == 0:
        return CheckResult(status.REWARD_HACK, f"output {name!r} has no real storage")
    if tuple(out.shape) != shape:
        return CheckResult(status.INCORRECT_SHAPE,
                           f"output {name!r} has shape {tuple(out.shape)}, expected {shape}")
    if out.dtype != torch_dtype(spec.dtype):
        return CheckResult(status.INCORRECT_DTYPE,
                           f"output {name!r} has dtype {str(out.dtype).removeprefix('torch.')}, "
                           f"expected {spec.dtype}")
    return CheckResult(status.PASSED)


TENSOR_LIKE = ("__torch_function__", "__array__", "__eq__", "__getattr__", "__float__", "__len__")


def _pretends(out: Any) -> bool:
    """An instance of a class defined outside the libraries that mimics a tensor's protocols."""
    module = type(out).__module__.split(".")[0]
    if module in ("builtins", "numpy", "torch"):
        return False
    return any(name in vars(cls) for cls in type(out).__mro__[:-1] for name in TENSOR_LIKE)


def compare_values(out: torch.Tensor, ref: torch.Tensor, name: str, tol: Tolerance) -> CheckResult:
    """Every figure is computed on the tensors' device and read back in one transfer (on a GPU
    each read is a synchronization)."""
    wide = torch.float64 if torch.float64 in (out.dtype, ref.dtype) else torch.float32
    o, r = out.detach().to(wide), ref.detach().to(wide)
    total = max(r.numel(), 1)
    ref_finite = torch.isfinite(r)
    err = torch.where(ref_finite, (o - r).abs(), torch.zeros_like(r))
    same_special = (o == r) | (torch.isnan(o) & torch.isnan(r))
    nothing = torch.zeros((), device=r.device)
    figures = torch.stack([f.double() for f in (
        (~torch.isfinite(o) & ref_finite).sum(),  # NaN or Inf where the reference is finite
        (~ref_finite & ~same_special).sum(),  # NaN or Inf of the reference not reproduced
        ((err <= tol.atol + tol.rtol * r.abs()) & ref_finite).sum(),
        (~ref_finite).sum(),
        (o != 0).any() if o.numel() else nothing,  # NaN counts as not zero
        ((r != 0) & ref_finite).any() if r.numel() else nothing,
        err.max() if err.numel() else nothing,
        # relative to |ref| floored at atol, as SOL-ExecBench has it: elements near 0 do not blow it
        # up; where the reference is NaN the error is 0 and so is this
        (err / r.abs().clamp_min_(max(tol.atol, torch.finfo(wide).eps)).nan_to_num_(nan=1.0)).max()
        if err.numel() else nothing,
        (torch.isnan(o) & ref_finite).any() if o.numel() else nothing,
    )]).tolist()
    bad_special, special_mismatch, within, ref_special = (int(f) for f in figures[:4])
    any_out, any_ref, max_err = bool(figures[4]), bool(figures[5]), figures[6]
    max_rel, nan_out = min(figures[7], sys.float_info.max), bool(figures[8])
    if bad_special:
        return CheckResult(status.INCORRECT_NUMERICAL,
                           f"output {name!r} has NaN/Inf in {bad_special} of {total} elements "
                           "where the reference is finite", matched_ratio=1 - bad_special / total,
                           has_nan=nan_out, has_inf=not nan_out)
    ratio = (within + ref_special - special_mismatch) / total
    if r.numel() and not any_out and any_ref:
        return CheckResult(status.INCORRECT_NUMERICAL,
                           f"output {name!r} is all zeros but the reference is not",
                           max_err, ratio, max_rel)
    if ratio < tol.required_matched_ratio:
        return CheckResult(
            status.INCORRECT_NUMERICAL,
            f"output {name!r}: {ratio:.2%} of elements within atol={tol.atol:g}, rtol={tol.rtol:g} "
            f"(needs {tol.required_matched_ratio:.2%}); max abs error {max_err:.3g}",
            max_err, ratio, max_rel,
        )
    return CheckResult(status.PASSED, "", max_err, ratio, max_rel)
