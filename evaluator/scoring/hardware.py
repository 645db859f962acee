"""Peak figures of the hardware SOL bounds are computed for (trusted side, pure Python).

Every compute figure is a DENSE peak (no 2:4 structured sparsity) in FLOP/s, or OP/s for int8;
bandwidth is in bytes/s (1 TB/s = 1e12 bytes/s). NVIDIA datasheets quote tensor-core figures
"with sparsity"; the dense figure is half of it. Where a GPU has both a vector and a matrix rate
for a class (FP64 on H100), the higher one is kept: the SOL bound must stay a lower bound on time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

COMPUTE_CLASSES = ("float64", "float32", "tf32", "bfloat16", "float16", "float8", "int8")

# The key under which a calibration may override `HardwareSpec.memory_bandwidth`.
BANDWIDTH_KEY = "memory_bandwidth"

_DTYPE_CLASS = {
    "float64": "float64",
    "float32": "float32",
    "tf32": "tf32",
    "bfloat16": "bfloat16",
    "float16": "float16",
    "float8": "float8",
    "float8_e4m3fn": "float8",
    "float8_e5m2": "float8",
    "float8_e4m3fnuz": "float8",
    "float8_e5m2fnuz": "float8",
    "int8": "int8",
    "uint8": "int8",
    # Wider integers and bool have no matrix units; the FP32 CUDA-core rate is at least their
    # throughput, so it keeps the bound a lower bound.
    "int16": "float32",
    "int32": "float32",
    "int64": "float32",
    "bool": "float32",
}


class UnknownHardware(ValueError):
    """A hardware slug that is not in `HARDWARE`."""


def _check_rate(label: str, value: float) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ValueError(f"{label}: a peak must be a positive finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class HardwareSpec:
    slug: str
    name: str
    vendor: str
    memory_gb: float
    memory_bandwidth: float  # bytes/s
    l2_bytes: int  # last-level on-chip cache an L2 flush must evict
    peak_flops: Mapping[str, float] = field(hash=False)  # dense FLOP/s per compute class
    source: str
    notes: str = ""
    # The share by which one kernel's problem score moves run to run here (benchmarks/score_noise.py,
    # its half-range); 0 where unmeasured. Boards tie entries closer than this (docs/scoring.md).
    score_noise: float = 0.0

    def __post_init__(self) -> None:
        missing = [c for c in COMPUTE_CLASSES if c not in self.peak_flops]
        if missing:
            raise ValueError(f"{self.slug}: no peak for compute classes {missing}")
        for key, value in [*self.peak_flops.items(), (BANDWIDTH_KEY, self.memory_bandwidth)]:
            _check_rate(f"{self.slug} {key}", value)
        object.__setattr__(self, "peak_flops", MappingProxyType(dict(self.peak_flops)))


def _tera(value: float) -> float:
    return value * 1e12


# H100 SXM and H200 SXM share the Hopper die and its rates; only memory differs.
_HOPPER_PEAKS = {
    "float64": _tera(67),  # FP64 tensor core (FP64 vector: 34)
    "float32": _tera(67),
    "tf32": _tera(494),  # 989 with sparsity
    "bfloat16": _tera(989),  # 1,979 with sparsity
    "float16": _tera(989),
    "float8": _tera(1979),  # 3,958 with sparsity
    "int8": _tera(1979),
}

HARDWARE: Mapping[str, HardwareSpec] = MappingProxyType({
    spec.slug: spec
    for spec in (
        HardwareSpec(
            slug="h100",
            name="NVIDIA H100 SXM5 80GB",
            vendor="nvidia",
            memory_gb=80,
            memory_bandwidth=_tera(3.35),
            l2_bytes=50 << 20,
            peak_flops=_HOPPER_PEAKS,
            source="NVIDIA H100 Tensor Core GPU datasheet, SXM5 column; sparse figures halved",
        ),
        HardwareSpec(
            slug="h200",
            name="NVIDIA H200 SXM 141GB",
            vendor="nvidia",
            memory_gb=141,
            memory_bandwidth=_tera(4.8),
            l2_bytes=60 << 20,  # what the device reports (torch L2_cache_size)
            peak_flops=_HOPPER_PEAKS,
            source="NVIDIA H200 Tensor Core GPU datasheet, SXM column; sparse figures halved",
            score_noise=0.030,  # docs/benchmarks/2026-12-04-score-noise-h200-launch-gaps.md (12 problems)
        ),
        HardwareSpec(
            slug="b200",
            name="NVIDIA B200 (HGX, 1000 W)",
            vendor="nvidia",
            memory_gb=180,
            memory_bandwidth=_tera(8.0),  # DGX B200: 64 TB/s over 8 GPUs
            l2_bytes=126 << 20,  # not in the datasheet; what the device reports
            peak_flops={
                # The first HGX B200 datasheet gives FP64 40 / FP32 80; a later revision 37 / 75.
                # The higher pair is kept so the bound stays a lower bound.
                "float64": _tera(40),
                "float32": _tera(80),
                "tf32": _tera(1100),  # 2.2 PFLOPS with sparsity
                "bfloat16": _tera(2250),  # 4.5 PFLOPS with sparsity
                "float16": _tera(2250),
                "float8": _tera(4500),  # 9 PFLOPS with sparsity
                "int8": _tera(4500),
            },
            source="NVIDIA HGX B200 / DGX B200 datasheets, per GPU; sparse figures halved",
        ),
        HardwareSpec(
            slug="a100",
            name="NVIDIA A100 SXM 80GB",
            vendor="nvidia",
            memory_gb=80,
            memory_bandwidth=_tera(2.039),
            l2_bytes=40 << 20,
            peak_flops={
                "float64": _tera(19.5),  # FP64 tensor core (FP64 vector: 9.7)
                "float32": _tera(19.5),
                "tf32": _tera(156),
                "bfloat16": _tera(312),
                "float16": _tera(312),
                # No FP8 units: FP8 data is computed after widening to FP16, so FP16 bounds it.
                "float8": _tera(312),
                "int8": _tera(624),
            },
            source="NVIDIA A100 Tensor Core GPU datasheet, 80GB SXM column (dense figures)",
        ),
        HardwareSpec(
            slug="mi300x",
            name="AMD Instinct MI300X 192GB",
            vendor="amd",
            memory_gb=192,
            memory_bandwidth=_tera(5.3),
            l2_bytes=256 << 20,  # the 256 MB Infinity Cache, the last level before HBM
            peak_flops={
                "float64": _tera(163.4),  # FP64 matrix (FP64 vector: 81.7)
                "float32": _tera(163.4),
                "tf32": _tera(653.7),
                "bfloat16": _tera(1307.4),
                "float16": _tera(1307.4),
                "float8": _tera(2614.9),
                "int8": _tera(2614.9),
            },
            source="AMD Instinct MI300X datasheet (dense figures; sparse ones are twice these)",
        ),
        HardwareSpec(
            slug="cpu",
            name="Generic CPU (Triton interpreter)",
            vendor="generic",
            memory_gb=64,
            memory_bandwidth=50e9,
            l2_bytes=32 << 20,
            peak_flops={
                "float64": _tera(0.5),
                "float32": _tera(1),
                "tf32": _tera(1),
                "bfloat16": _tera(1),
                "float16": _tera(1),
                "float8": _tera(1),
                "int8": _tera(2),
            },
            source="round figures for a modest many-core server CPU; not a datasheet",
            notes="CPU times come from the Triton interpreter, not a GPU: they rank CPU entries "
                  "among themselves, vary from machine to machine, and say nothing of a GPU's speed",
        ),
    )
})


def get_hardware(slug: str) -> HardwareSpec:
    try:
        return HARDWARE[slug.strip().lower()]
    except KeyError:
        raise UnknownHardware(f"unknown hardware {slug!r}; known: {', '.join(HARDWARE)}") from None


def timing_note(slug: str) -> str:
    """What a hardware's times are not (the CPU's: no GPU timing), to show beside them; "" for a
    GPU or a hardware the table does not know."""
    spec = HARDWARE.get(slug.strip().lower())
    return spec.notes if spec is not None else ""


def compute_class(dtype: str) -> str:
    """The peak key for a tensor dtype name ("bfloat16", "torch.float8_e4m3fn", "tf32", ...)."""
    name = dtype.strip().removeprefix("torch.")
    try:
        return _DTYPE_CLASS[name]
    except KeyError:
        raise ValueError(f"no compute class for dtype {dtype!r}; known: {', '.join(_DTYPE_CLASS)}") from None


def peak_flops(hw: HardwareSpec, dtype: str, calibrated: Mapping[str, float] | None = None) -> float:
    """Dense peak FLOP/s of `hw` for `dtype`; a calibrated figure for its class wins over the datasheet."""
    key = compute_class(dtype)
    if calibrated and key in calibrated:
        return _check_rate(f"calibrated {key}", calibrated[key])
    return hw.peak_flops[key]


def peak_bandwidth(hw: HardwareSpec, calibrated: Mapping[str, float] | None = None) -> float:
    """Memory bandwidth of `hw` in bytes/s; a calibrated `memory_bandwidth` wins over the datasheet."""
    if calibrated and BANDWIDTH_KEY in calibrated:
        return _check_rate(f"calibrated {BANDWIDTH_KEY}", calibrated[BANDWIDTH_KEY])
    return hw.memory_bandwidth
