"""One evaluation worker per GPU (issue 9): read a host's GPUs, and plan a Celery worker pinned to
each with CUDA_VISIBLE_DEVICES, consuming its hardware's queue one evaluation at a time.

Inside a pinned worker the harness sees exactly one device, which CUDA numbers 0: the job's device
"cuda" resolves to cuda:0 (evaluator/harness/reporter.py pick_device), and the docker sandbox hands
the container that one GPU by the same id. Pure planning: nothing is started here.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# `nvidia-smi -L`: "GPU 0: NVIDIA H200 (UUID: GPU-...)", and under a GPU in MIG mode one
# "  MIG 1g.18gb Device 0: (UUID: MIG-...)" line per instance.
GPU_LINE = re.compile(r"GPU (?P<index>\d+): (?P<name>.+?) \(UUID: (?P<uuid>GPU-[0-9A-Za-z-]+)\)")
MIG_LINE = re.compile(r"\s+MIG .+\(UUID: MIG-[0-9A-Za-z-]+\)")
DEVICE_ID = re.compile(r"\d+|GPU-[0-9A-Za-z-]+")
NVIDIA_SMI_SECONDS = 30


class GpuListError(ValueError):
    """The host's GPUs could not be read or used; the message says why and what to pass instead."""


@dataclass(frozen=True)
class Gpu:
    index: int  # its number on this host: nvidia-smi's index, or the id itself when that is a number
    device: str  # what CUDA_VISIBLE_DEVICES gets: the UUID when known (no numbering ambiguity)
    name: str = ""


@dataclass(frozen=True)
class WorkerPlan:
    name: str  # Celery node name, unique on the host: gpu<index>@<host>
    gpu: Gpu
    queue: str
    env: Mapping[str, str] = field(hash=False)  # added to the worker's environment
    argv: Sequence[str] = field(hash=False)


def parse_nvidia_smi(text: str) -> list[Gpu]:
    gpus: list[Gpu] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if MIG_LINE.match(line):
            parent = gpus[-1].index if gpus else "?"
            raise GpuListError(f"GPU {parent} is in MIG mode: a MIG slice is not the hardware whose "
                               "speed of light the scores are computed against; give the worker host "
                               "whole GPUs")
        match = GPU_LINE.match(line.strip())
        if match is None:
            raise GpuListError(f"unexpected line from nvidia-smi -L: {line.strip()!r}")
        gpus.append(Gpu(int(match["index"]), match["uuid"], match["name"]))
    return _unique(gpus)


def parse_device_list(value: str) -> list[Gpu]:
    """Comma-separated indices or GPU-... UUIDs, as CUDA_VISIBLE_DEVICES or --gpus give them."""
    gpus: list[Gpu] = []
    for position, part in enumerate(p.strip() for p in value.split(",")):
        if not DEVICE_ID.fullmatch(part):
            raise GpuListError(f"{part!r} is not a GPU index or a GPU-... UUID (MIG slices are not "
                               "supported)")
        gpus.append(Gpu(int(part) if part.isdigit() else position, part))
    return _unique(gpus)


def detect(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> list[Gpu]:
    """The GPUs to pin workers to: an explicit list, else CUDA_VISIBLE_DEVICES when set and not
    empty, else every GPU `nvidia-smi -L` lists."""
    if explicit is not None:
        return parse_device_list(explicit)
    visible = (environ if environ is not None else {}).get("CUDA_VISIBLE_DEVICES", "").strip()
    if visible:
        return parse_device_list(visible)
    nvidia_smi = shutil.which("nvidia-smi", path=(environ or {}).get("PATH"))
    if nvidia_smi is None:
        raise GpuListError("no GPU list: nvidia-smi is not on the PATH and neither --gpus nor "
                           "CUDA_VISIBLE_DEVICES names the GPUs")
    try:
        listed = subprocess.run([nvidia_smi, "-L"], capture_output=True, text=True, check=True,
                                timeout=NVIDIA_SMI_SECONDS)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        raise GpuListError(f"nvidia-smi -L failed: {exc}") from exc
    gpus = parse_nvidia_smi(listed.stdout)
    if not gpus:
        raise GpuListError("nvidia-smi -L lists no GPU")
    return gpus


def plan_workers(gpus: Sequence[Gpu], hardware: str, hostname: str, *, python: str = sys.executable,
                 loglevel: str = "INFO") -> list[WorkerPlan]:
    """One worker per GPU: pinned, on queue hw.<hardware>, one evaluation at a time and none
    reserved ahead (prefetch 1 with acks_late: a message waits in the queue, not in a busy worker)."""
    if not gpus:
        raise GpuListError("no GPU to plan a worker for")
    queue = f"hw.{hardware}"
    plans = []
    for gpu in _unique(list(gpus)):
        name = f"gpu{gpu.index}@{hostname}"
        argv = [python, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", queue, "-n", name,
                "-P", "prefork", "-c", "1", "--prefetch-multiplier", "1", "-O", "fair",
                "--without-gossip", "--without-mingle", "--loglevel", loglevel]
        # PCI_BUS_ID: a numeric id then means the GPU nvidia-smi shows under that number.
        env = {"CUDA_VISIBLE_DEVICES": gpu.device, "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
        plans.append(WorkerPlan(name, gpu, queue, env, argv))
    return plans


def _unique(gpus: list[Gpu]) -> list[Gpu]:
    for key, label in ((lambda g: g.index, "index"), (lambda g: g.device, "device")):
        seen = [key(g) for g in gpus]
        twice = sorted({str(k) for k in seen if seen.count(k) > 1})
        if twice:
            raise GpuListError(f"GPU {label} listed twice: {', '.join(twice)}")
    return gpus
