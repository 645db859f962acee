"""What the measurement ran on, recorded beside every result."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

import torch


def describe(device: torch.device) -> dict[str, Any]:
    info: dict[str, Any] = {
        "device": device.type,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": torch.__version__,
        "triton": _triton_version(),
        "triton_interpret": os.environ.get("TRITON_INTERPRET") == "1",
        "cpu_count": os.cpu_count(),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(
            gpu=props.name,
            gpu_count=torch.cuda.device_count(),
            compute_capability=f"{props.major}.{props.minor}",
            multiprocessors=props.multi_processor_count,
            gpu_memory_bytes=props.total_memory,
            l2_bytes=getattr(props, "L2_cache_size", None),
            cuda=torch.version.cuda,
            driver=_driver_version(),
        )
    else:
        info["gpu"] = None
    return info


def _triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return triton.__version__


def _driver_version() -> str | None:
    version_file = Path("/proc/driver/nvidia/version")
    if version_file.is_file():
        for word in version_file.read_text(errors="replace").split():
            if word.count(".") >= 1 and word.replace(".", "").isdigit():
                return word
    try:
        import pynvml  # optional: nvidia-ml-py

        pynvml.nvmlInit()
        return str(pynvml.nvmlSystemGetDriverVersion())
    except Exception:
        return None
