"""Where a workload sits under the hardware's roofline: its arithmetic intensity against the ridge
point, which roof bounds it (memory or compute), the FLOP/s and bytes/s its kernel achieved, and
what share of the roof that is (the SOL bound's time over the kernel's: 1.0 is on the roof).

The FLOPs and bytes are the SOL bound's own (sol.py), the peaks the same ones the bound uses, so
the roofline and the score never disagree about a workload."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.scoring.hardware import HardwareSpec, peak_bandwidth, peak_flops
from evaluator.scoring.sol import WorkloadWork


@dataclass(frozen=True)
class Roofline:
    flops: float
    bytes: float
    peak_flops_per_s: float
    peak_bytes_per_s: float
    intensity: float | None  # FLOPs per byte; None when the workload moves no bytes
    ridge: float  # the intensity where the two roofs meet (peak FLOP/s over peak bytes/s)
    bound: str  # "memory" or "compute": the roof over this intensity
    sol_ms: float
    achieved_flops_per_s: float | None = None  # with a kernel time
    achieved_bytes_per_s: float | None = None
    share_of_roof: float | None = None  # sol_ms / kernel ms

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def roofline(work: WorkloadWork, hardware: HardwareSpec, kernel_ms: float | None = None,
             calibrated: Mapping[str, float] | None = None) -> Roofline:
    """The roofline of one workload on `hardware`; the achieved rates only for a positive
    kernel time."""
    compute, memory = peak_flops(hardware, work.dtype, calibrated), peak_bandwidth(hardware, calibrated)
    intensity = work.flops / work.bytes if work.bytes > 0 else None
    ridge = compute / memory
    compute_s, memory_s = work.flops / compute, work.bytes / memory  # above the ridge: compute_s larger
    line = Roofline(work.flops, work.bytes, compute, memory, intensity, ridge,
                    "compute" if compute_s > memory_s else "memory", max(compute_s, memory_s) * 1e3)
    if not kernel_ms or kernel_ms <= 0:
        return line
    seconds = kernel_ms / 1e3
    return Roofline(**{**asdict(line), "achieved_flops_per_s": work.flops / seconds,
                       "achieved_bytes_per_s": work.bytes / seconds,
                       "share_of_roof": line.sol_ms / kernel_ms})
