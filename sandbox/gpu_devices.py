"""Which NVIDIA device nodes a sandboxed evaluation may open: the driver's shared nodes, and of
the per-GPU nodes (/dev/nvidia<minor>) only those of the GPUs its CUDA_VISIBLE_DEVICES names.

On a host with several GPUs each worker is pinned to one (evaluator/gpus.py), but the variable
only steers CUDA: a solution could open another GPU's node itself and disturb the evaluation
timed there. Without the node it cannot. The driver describes each GPU in
/proc/driver/nvidia/gpus/<PCI bus id>/information (its UUID and device minor); CUDA's indices
count the GPUs in PCI bus order, as the pinned workers ask for (CUDA_DEVICE_ORDER=PCI_BUS_ID).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PROC_GPUS = Path("/proc/driver/nvidia/gpus")
DEV = Path("/dev")
PER_GPU_NODE = re.compile(r"nvidia\d+")


class UnknownGpu(RuntimeError):
    """CUDA_VISIBLE_DEVICES names a GPU this host's driver does not list."""


@dataclass(frozen=True)
class Gpu:
    bus_id: str
    uuid: str
    minor: int


def host_gpus(proc_gpus: Path = PROC_GPUS) -> list[Gpu]:
    """The host's GPUs in PCI bus order, from the driver's own description of each."""
    gpus = []
    for info in sorted(proc_gpus.glob("*/information")):
        fields = dict(line.split(":", 1) for line in info.read_text(errors="replace").splitlines()
                      if ":" in line)
        fields = {key.strip(): value.strip() for key, value in fields.items()}
        if "GPU UUID" in fields and fields.get("Device Minor", "").isdigit():
            gpus.append(Gpu(info.parent.name.lower(), fields["GPU UUID"], int(fields["Device Minor"])))
    return sorted(gpus, key=lambda gpu: gpu.bus_id)


def device_nodes(visible: str | None, proc_gpus: Path = PROC_GPUS, dev: Path = DEV) -> list[str]:
    """The /dev/nvidia* nodes to pass into a sandbox whose CUDA_VISIBLE_DEVICES is `visible`
    (None: unset, every GPU). Raises UnknownGpu for an entry the host does not have."""
    nodes = sorted(str(p) for p in dev.glob("nvidia*"))
    shared = [n for n in nodes if not PER_GPU_NODE.fullmatch(Path(n).name)]
    if visible is None:
        return nodes
    gpus = host_gpus(proc_gpus)
    wanted = []
    for entry in (e.strip() for e in visible.split(",")):
        if not entry:
            continue
        gpu = _find(entry, gpus)
        if gpu is None:
            raise UnknownGpu(f"CUDA_VISIBLE_DEVICES names {entry!r}, which is none of this host's "
                             f"{len(gpus)} GPU(s)")
        wanted.append(str(dev / f"nvidia{gpu.minor}"))
    return sorted(shared + [n for n in wanted if n in nodes])


def _find(entry: str, gpus: list[Gpu]) -> Gpu | None:
    if entry.isdigit():
        return gpus[int(entry)] if int(entry) < len(gpus) else None
    if entry.startswith("GPU-"):
        # CUDA accepts a unique prefix of a UUID
        matches = [gpu for gpu in gpus if gpu.uuid.lower().startswith(entry.lower())]
        return matches[0] if len(matches) == 1 else None
    return None
