"""`celery -A solarena.celery inspect pinned_device`: the GPU each worker is pinned to. Registered
when the Celery app is imported, so the command line knows it as well as the workers (no Django
needed on either side)."""

from __future__ import annotations

import os
import socket
from typing import Any

from celery.worker.control import inspect_command


@inspect_command()
def pinned_device(state: Any) -> dict[str, Any]:
    """The device this worker process is pinned to, and where it runs."""
    return {"CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "CUDA_DEVICE_ORDER": os.environ.get("CUDA_DEVICE_ORDER"),
            "host": socket.gethostname(), "pid": os.getpid()}
