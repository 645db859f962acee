"""The GPU's current SM clock, read through NVML (nvidia-ml-py) beside each timed call.

At the power or clock limit a long kernel's time follows the clock the card runs at, which
depends on what ran before: a time is only comparable with another taken at the same clock, so
each sample carries the clock read right after its call. Reading it is optional: without NVML,
or on the CPU, every reading is None.
"""

from __future__ import annotations

from typing import Any

import torch

_handles: dict[int, Any] = {}


def sm_clock_mhz(device: torch.device) -> float | None:
    """The SM clock of `device` now, in MHz, or None when it cannot be read."""
    if device.type != "cuda":
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    try:
        import pynvml

        if index not in _handles:
            pynvml.nvmlInit()
            # NVML numbers every GPU of the host; CUDA only the visible ones: match by UUID.
            uuid = str(torch.cuda.get_device_properties(index).uuid)
            _handles[index] = pynvml.nvmlDeviceGetHandleByUUID(
                uuid if uuid.startswith("GPU-") else f"GPU-{uuid}")
        return float(pynvml.nvmlDeviceGetClockInfo(_handles[index], pynvml.NVML_CLOCK_SM))
    except Exception:
        _handles.pop(index, None)
        return None
