"""Making a workload's inputs: random, scalar, safetensors and custom descriptors."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import torch

from .problem import Definition, TensorSpec, Workload

FLOAT8 = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}
FLOAT_DTYPES = {"float64", "float32", "float16", "bfloat16", *FLOAT8}


class InputError(RuntimeError):
    """The problem's own input generation failed (a problem defect, not the solution's)."""


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def derive_seed(seed: int, *parts: object) -> int:
    text = ":".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "little")


def make_inputs(
    definition: Definition,
    workload: Workload,
    axes: Mapping[str, int],
    seed: int,
    device: torch.device,
    problem_dir: Path | None = None,
    custom: Callable[..., Mapping[str, Any]] | None = None,
) -> list[Any]:
    """The positional arguments of run(...) for one round, deterministic in `seed`."""
    if definition.custom_inputs_entrypoint and all(
        d["type"] == "custom" for d in workload.inputs.values()
    ):
        if custom is None:
            raise InputError("the reference defines no custom inputs entrypoint")
        return _custom_inputs(definition, axes, seed, device, custom)
    generator = torch.Generator(device=device).manual_seed(seed)
    args = []
    for name, spec in definition.inputs.items():
        desc = workload.inputs[name]
        kind = desc["type"]
        if kind == "scalar":
            args.append(_scalar(desc["value"], spec))
        elif kind == "safetensors":
            args.append(_safetensors(desc, spec, definition, axes, device, problem_dir))
        else:
            args.append(_random(spec, definition.shape(spec, axes), desc, generator, device))
    return args


def _scalar(value: Any, spec: TensorSpec) -> Any:
    if spec.dtype == "bool":
        return bool(value)
    if spec.dtype in FLOAT_DTYPES:
        return float(value)
    return int(value)


def _random(
    spec: TensorSpec,
    shape: tuple[int, ...],
    desc: Mapping[str, Any],
    generator: torch.Generator,
    device: torch.device,
) -> torch.Tensor:
    dtype = torch_dtype(spec.dtype)
    if spec.dtype == "bool":
        return torch.randint(0, 2, shape, generator=generator, device=device).bool()
    if spec.dtype not in FLOAT_DTYPES:
        low, high = int(desc.get("low", 0)), int(desc.get("high", 128))
        return torch.randint(low, high, shape, generator=generator, device=device, dtype=dtype)
    if desc.get("distribution", "normal") == "uniform":
        low, high = float(desc.get("low", 0.0)), float(desc.get("high", 1.0))
        values = torch.rand(shape, generator=generator, device=device) * (high - low) + low
    else:
        mean, std = float(desc.get("mean", 0.0)), float(desc.get("std", 1.0))
        values = torch.randn(shape, generator=generator, device=device) * std + mean
    if spec.dtype in FLOAT8:
        limit = FLOAT8[spec.dtype]
        values = values.clamp(-limit, limit)
    return values.to(dtype)


def _safetensors(
    desc: Mapping[str, Any],
    spec: TensorSpec,
    definition: Definition,
    axes: Mapping[str, int],
    device: torch.device,
    problem_dir: Path | None,
) -> torch.Tensor:
    from safetensors.torch import load_file

    if problem_dir is None:
        raise InputError("safetensors inputs need the problem directory")
    tensors = load_file(str(problem_dir / desc["path"]))
    if desc["tensor_key"] not in tensors:
        raise InputError(f"{desc['path']} has no tensor {desc['tensor_key']!r}")
    tensor = tensors[desc["tensor_key"]]
    _check_tensor(spec, tensor, definition.shape(spec, axes), "safetensors input")
    return tensor.to(device)


def _custom_inputs(
    definition: Definition,
    axes: Mapping[str, int],
    seed: int,
    device: torch.device,
    custom: Callable[..., Mapping[str, Any]],
) -> list[Any]:
    torch.manual_seed(seed)
    try:
        made = custom(dict(axes), device)
    except Exception as exc:
        raise InputError(f"{definition.custom_inputs_entrypoint} failed: {exc!r}") from exc
    if not isinstance(made, Mapping):
        raise InputError(f"{definition.custom_inputs_entrypoint} must return a dict")
    missing = set(definition.inputs) - set(made)
    if missing:
        raise InputError(f"{definition.custom_inputs_entrypoint} did not make {sorted(missing)}")
    args = []
    for name, spec in definition.inputs.items():
        value = made[name]
        if not spec.is_scalar:
            _check_tensor(spec, value, definition.shape(spec, axes), "custom input")
            value = value.to(device)
        args.append(value)
    return args


def _check_tensor(spec: TensorSpec, value: Any, shape: tuple[int, ...], what: str) -> None:
    if not isinstance(value, torch.Tensor):
        raise InputError(f"{what} {spec.name!r} is not a tensor")
    if tuple(value.shape) != shape or value.dtype != torch_dtype(spec.dtype):
        raise InputError(
            f"{what} {spec.name!r} is {tuple(value.shape)} {value.dtype}, "
            f"expected {shape} {spec.dtype}"
        )


def empty_outputs(
    definition: Definition, axes: Mapping[str, int], device: torch.device
) -> list[torch.Tensor]:
    """Destination buffers for destination-passing solutions, poisoned so unwritten cells fail."""
    outs = []
    for spec in definition.outputs.values():
        shape, dtype = definition.shape(spec, axes), torch_dtype(spec.dtype)
        if spec.dtype in FLOAT_DTYPES and spec.dtype not in FLOAT8:
            outs.append(torch.full(shape, float("nan"), dtype=dtype, device=device))
        elif spec.dtype in FLOAT8:
            outs.append(torch.full(shape, -FLOAT8[spec.dtype], device=device).to(dtype))
        elif spec.dtype == "bool":
            outs.append(torch.ones(shape, dtype=dtype, device=device))
        else:
            outs.append(torch.full(shape, -12345, dtype=dtype, device=device))
    return outs


def scrub(values: Any) -> None:
    """Overwrite checked tensors before they are freed, so the allocator never hands a correct
    answer to a later call that writes nothing into its fresh output."""
    items = values if isinstance(values, (list, tuple)) else [values]
    for t in items:
        if type(t) is torch.Tensor and t.numel() and not t.is_meta:
            if t.dtype.is_floating_point and t.dtype not in (torch.float8_e4m3fn, torch.float8_e5m2):
                t.detach().fill_(float("nan"))
            elif t.dtype == torch.bool:
                t.detach().logical_not_()
            else:
                t.detach().view(torch.uint8).fill_(0xA5)
