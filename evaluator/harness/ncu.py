"""Nsight Compute for profile mode (docs/measuring.md, "Profile mode"): the command line that runs
the harness on one workload under `ncu`, and a parser of the report it exports, read back with
`ncu --import X.ncu-rep --csv --page details`.

Only the kernels the solution's process launches inside the NVTX range it pushes around each
profiled call (RANGE) are profiled: the correctness rounds, the reference and the harness's own
kernels run unprofiled. The report is written inside the sandbox, where the solution could write it
too: what the parser reads back is bounded and checked, and never enters a score. No torch here:
the trusted CLI imports it. Running it all: evaluator/ncu_runs.py."""

from __future__ import annotations

import csv
import io
import math
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RANGE = "solarena_profiled_call"  # the NVTX push/pop range around each profiled call
SECTIONS = ("SpeedOfLight", "MemoryWorkloadAnalysis", "LaunchStats", "Occupancy")
MAX_LAUNCHES = 200  # kernels profiled per run: each is replayed once per metric pass
# Metric name as ncu prints it -> (our field, the unit we keep it in).
METRICS = {
    "Duration": ("duration_ms", "ms"),
    "Compute (SM) Throughput": ("sm_throughput_pct", "%"),
    "Memory Throughput": ("memory_throughput_pct", "%"),
    "DRAM Throughput": ("dram_throughput_pct", "%"),
    "Achieved Occupancy": ("achieved_occupancy_pct", "%"),
    "Registers Per Thread": ("registers_per_thread", ""),
    "Dynamic Shared Memory Per Block": ("dynamic_shared_memory_bytes", "byte"),
    "Static Shared Memory Per Block": ("static_shared_memory_bytes", "byte"),
}
_TIME_MS = {"ns": 1e-6, "nsecond": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0,
            "second": 1e3, "s": 1e3}
_BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6}  # ncu's prefixes are decimal


class NcuError(Exception):
    """ncu failed or printed what this parser cannot read; the message says which."""


def find_ncu() -> str | None:
    return shutil.which("ncu")


def prefix(ncu: str, export: Path, launches: int = MAX_LAUNCHES) -> list[str]:
    """What goes before the harness's own command line to run it under ncu, writing `export`.
    ncu's own lines (==PROF==) go to stderr: its stdout is the harness's, the results channel."""
    sections = [arg for name in SECTIONS for arg in ("--section", name)]
    return [ncu, "--target-processes", "all", "--nvtx", "--nvtx-include", f"{RANGE}/", *sections,
            "--launch-count", str(launches), "--log-file", "stderr", "--export", str(export),
            "--force-overwrite"]


def command(ncu: str, export: Path, harness_argv: Sequence[str]) -> list[str]:
    return [*prefix(ncu, export), *harness_argv]


def import_command(ncu: str, report: Path) -> list[str]:
    """Base units (nsecond, byte), so no value depends on ncu's choice of prefix."""
    return [ncu, "--import", str(report), "--csv", "--page", "details", "--print-units", "base"]


def parse_details(text: str) -> list[dict[str, Any]]:
    """One dict per profiled launch (ncu's ID), in order: `id`, `name`, `grid` and `block` (three
    sizes each), `shared_memory_bytes` (dynamic plus static), and the METRICS that were measured
    (None where a section did not report one). ncu's own ==PROF== lines are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise NcuError("no CSV header in ncu's output (was a kernel profiled?)")
    kernels: dict[str, dict[str, Any]] = {}
    table = [line for line in lines[start:] if not line.startswith("==")]  # ncu's notes, anywhere
    for row in csv.DictReader(io.StringIO("\n".join(table))):
        launch = (row.get("ID") or "").strip()
        if not launch.isdigit():
            continue
        kernel = kernels.get(launch)
        if kernel is None:
            kernel = kernels[launch] = {
                "id": int(launch), "name": row.get("Kernel Name", ""), "grid": _dims(row.get("Grid Size")),
                "block": _dims(row.get("Block Size")), **{field: None for field, _ in METRICS.values()}}
        metric = METRICS.get(row.get("Metric Name", ""))
        if metric is not None:  # a name two sections share in other units stays the one in ours
            field, unit = metric
            value = _value(row.get("Metric Value", ""), row.get("Metric Unit", ""), unit)
            kernel[field] = kernel[field] if value is None else value
    for kernel in kernels.values():
        shared = [kernel.pop("dynamic_shared_memory_bytes"), kernel.pop("static_shared_memory_bytes")]
        known = [int(s) for s in shared if s is not None]
        kernel["shared_memory_bytes"] = sum(known) if known else None
        if kernel["registers_per_thread"] is not None:
            kernel["registers_per_thread"] = int(kernel["registers_per_thread"])
    return list(kernels.values())


def summarize(launches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Launches of the same kernel with the same launch configuration as one row: calls, total
    and mean duration, the mean of each other metric; by total duration, longest first."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for launch in launches:
        key = (launch["name"], tuple(launch["grid"] or ()), tuple(launch["block"] or ()))
        groups.setdefault(key, []).append(launch)
    rows = []
    for group in groups.values():
        first = group[0]
        durations = [g["duration_ms"] for g in group if g["duration_ms"] is not None]
        row = {"name": first["name"], "kind": "kernel", "calls": len(group),
               "total_ms": sum(durations) if durations else None,
               "mean_ms": sum(durations) / len(durations) if durations else None,
               "grid": first["grid"], "block": first["block"],
               "registers_per_thread": first["registers_per_thread"],
               "shared_memory_bytes": first["shared_memory_bytes"]}
        for field in ("sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct",
                      "achieved_occupancy_pct"):
            values = [g[field] for g in group if g[field] is not None]
            row[field] = sum(values) / len(values) if values else None
        rows.append(row)
    return sorted(rows, key=lambda r: -(r["total_ms"] or 0.0))


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "")  # ncu writes thousands separators: "1,024"
    if not text or text.lower() in ("n/a", "nan", "inf", "-inf"):
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None  # "1e999" reads as inf


def _value(text: str, unit: str, want: str) -> float | None:
    number = _number(text)
    if number is None:
        return None
    unit = unit.strip().split("/")[0]  # "byte/block" -> "byte"
    if want == "ms":
        return number * _TIME_MS[unit] if unit in _TIME_MS else None
    if want == "byte":
        return number * _BYTES[unit] if unit in _BYTES else None
    if want == "%":  # "Memory Throughput" is also in byte/second
        return number if unit == "%" else None
    return number


def _dims(text: str | None) -> list[int] | None:
    """"(256, 1, 1)" -> [256, 1, 1]; None where ncu gave none, or no launch size."""
    parts = (text or "").strip().strip("()").split(",")
    try:
        dims = [int(p) for p in parts if p.strip()]
    except ValueError:
        return None
    return dims if 0 < len(dims) <= 3 and all(d >= 0 for d in dims) else None
