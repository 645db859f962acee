"""Profile mode (docs/measuring.md, "Profile mode"): a few of the solution's calls run under torch's
profiler, or inside an NVTX range for Nsight Compute (ncu.py), and the top kernels or operators
are reported by total time. Informational only: nothing here enters a score.

`Recorder` runs in the solution's process, so whatever it reports is a claim: `validate` is the
reporter's check of it (plain types, finite non-negative numbers, bounded size). torch is imported
only where a call is profiled: the CLI reads the names and limits here without it."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .ncu import RANGE

if TYPE_CHECKING:
    import torch

TORCH, NCU = "torch_profiler", "ncu"
TOOLS = (TORCH, NCU)
CALLS = 3  # profiled calls per workload
MAX_KERNELS = 20
MAX_NAME = 200
GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCHES = {"cuda_runtime", "cuda_driver"}
# Kernel records' fields in torch's trace -> ours.
LAUNCH_FIELDS = {"grid": "grid", "block": "block", "registers per thread": "registers_per_thread",
                 "shared memory": "shared_memory_bytes"}
INT_FIELDS = ("registers_per_thread", "shared_memory_bytes")


class Recorder:
    """Wraps the solution's call: each one inside RANGE (an NVTX range on a GPU, and a profiler
    annotation under torch's profiler), the device synchronized before the range closes."""

    def __init__(self, device: torch.device, tool: str) -> None:
        self.device, self.tool = device, tool
        self.events: list[dict[str, Any]] = []

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        if self.tool != TORCH:
            yield
            return
        from torch.autograd.profiler import profile

        cuda = self.device.type == "cuda"
        with profile(use_cpu=True, use_device="cuda" if cuda else None, use_kineto=True) as prof:
            yield
        with tempfile.TemporaryDirectory() as scratch:  # kernels' launch configurations are in the trace only
            path = os.path.join(scratch, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as fh:
                self.events = json.load(fh).get("traceEvents", [])

    def wrap(self, invoke: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
        import torch
        from torch.autograd.profiler import record_function

        cuda = self.device.type == "cuda"

        def profiled(args: list[Any]) -> Any:
            if cuda:
                torch.cuda.nvtx.range_push(RANGE)
            try:
                with record_function(RANGE):
                    result = invoke(args)
                    if cuda:
                        torch.cuda.synchronize(self.device)
            finally:
                if cuda:
                    torch.cuda.nvtx.range_pop()
            return result

        return profiled

    def report(self, calls: int) -> dict[str, Any]:
        kernels, truncated = top_kernels(self.events) if self.tool == TORCH else ([], False)
        return {"tool": self.tool, "device": self.device.type, "calls": calls, "kernels": kernels,
                "truncated": truncated}


def top_kernels(events: list[dict[str, Any]], limit: int = MAX_KERNELS) -> tuple[list[dict[str, Any]], bool]:
    """What the profiled calls ran, by total time: the GPU activities they launched (matched to
    their launch by correlation id), or where they launched none, the host operators and ranges
    recorded inside them. Returns the first `limit` and whether more were left out."""
    windows = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in events
               if e.get("cat") == "user_annotation" and e.get("name") == RANGE]

    def inside(e: dict[str, Any]) -> bool:
        return any(lo <= e.get("ts", -1) <= hi for lo, hi in windows)

    launched = {(e.get("args") or {}).get("correlation") for e in events
                if e.get("cat") in LAUNCHES and inside(e)} - {None}
    chosen = [e for e in events if e.get("cat") in GPU_KINDS
              and (e.get("args") or {}).get("correlation") in launched]
    if not chosen:
        chosen = [e for e in events if inside(e) and (
            e.get("cat") == "cpu_op" or (e.get("cat") == "user_annotation" and e.get("name") != RANGE))]
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for e in chosen:
        kind = GPU_KINDS.get(e["cat"], "operator" if e["cat"] == "cpu_op" else "range")
        args = e.get("args") or {}
        launch = ({ours: args.get(theirs) for theirs, ours in LAUNCH_FIELDS.items()}
                  if kind == "kernel" else {})
        key = (kind, e.get("name"), str(launch.get("grid")), str(launch.get("block")))
        row = rows.setdefault(key, {"name": str(e.get("name", ""))[:MAX_NAME], "kind": kind, "calls": 0,
                                    "total_ms": 0.0, **{f: None for f in LAUNCH_FIELDS.values()}})
        row["calls"] += 1
        row["total_ms"] += float(e.get("dur", 0.0)) / 1e3
        for field, value in launch.items():
            row[field] = _launch_value(field, value)
    ordered = sorted(rows.values(), key=lambda r: -r["total_ms"])
    for row in ordered:
        row["mean_ms"] = round(row["total_ms"] / row["calls"], 6)
        row["total_ms"] = round(row["total_ms"], 6)
    return ordered[:limit], len(ordered) > limit


def _launch_value(field: str, value: Any) -> Any:
    if field in INT_FIELDS:
        return int(value) if type(value) in (int, float) and math.isfinite(value) and value >= 0 else None
    if isinstance(value, list) and all(type(v) is int and v >= 0 for v in value) and len(value) <= 3:
        return value
    return None


def validate(raw: Any, calls: int, tool: str) -> dict[str, Any]:
    """The reporter's reading of a profile the solution's process sent: ValueError for anything
    an honest process never sends (wrong types, non-finite or negative numbers, more than
    MAX_KERNELS rows); names over MAX_NAME are cut."""
    if not isinstance(raw, dict):
        raise ValueError("a profile must be an object")
    if raw.get("tool") != tool or raw.get("calls") != calls or type(raw.get("truncated")) is not bool:
        raise ValueError("the profile's tool, calls or truncated flag is not what was asked")
    entries = raw.get("kernels")
    if not isinstance(entries, list) or len(entries) > MAX_KERNELS:
        raise ValueError(f"a profile lists at most {MAX_KERNELS} kernels")
    kernels = [_kernel(e) for e in entries]
    return {"tool": tool, "device": str(raw.get("device", ""))[:16], "calls": calls, "kernels": kernels,
            "truncated": raw["truncated"]}


def _kernel(entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ValueError("a profiled kernel must be an object")
    name, kind, count = entry.get("name"), entry.get("kind"), entry.get("calls")
    if not isinstance(name, str) or kind not in ("kernel", "memcpy", "memset", "operator", "range"):
        raise ValueError("a profiled kernel needs a name and a known kind")
    if type(count) is not int or count < 1:
        raise ValueError("a profiled kernel's calls must be a positive integer")
    out: dict[str, Any] = {"name": name[:MAX_NAME], "kind": kind, "calls": count}
    for field in ("total_ms", "mean_ms"):
        out[field] = _time(entry.get(field), field)
    for field in INT_FIELDS:
        value = entry.get(field)
        if value is not None and (type(value) is not int or value < 0):
            raise ValueError(f"a profiled kernel's {field} is {value!r}")
        out[field] = value
    for field in ("grid", "block"):
        value = entry.get(field)
        if value is not None and not (isinstance(value, list) and len(value) <= 3
                                      and all(type(v) is int and v >= 0 for v in value)):
            raise ValueError(f"a profiled kernel's {field} is not a launch size")
        out[field] = value
    return out


def _time(value: Any, field: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise ValueError(f"a profiled kernel's {field} is {value!r}")
    return float(value)
