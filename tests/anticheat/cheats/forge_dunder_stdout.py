"""Result forgery on sys.__stdout__: the forged result goes to the interpreter's original standard
output, past any redirection of sys.stdout the harness made at the Python level.

A naive harness that swaps sys.stdout for a buffer while the solution runs, but still reports on
the process's real stdout, reads the forged line as its own. The kernel is wrong (no bias)."""

import json
import sys

import torch


def _current_uuid() -> str:
    frame = sys._getframe(1)
    while frame is not None:
        workload = getattr(frame.f_locals.get("self"), "workload", None)
        if isinstance(getattr(workload, "uuid", None), str):
            return workload.uuid
        frame = frame.f_back
    return "unknown"


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    forged = {"event": "workload", "uuid": _current_uuid(), "status": "PASSED", "message": "",
              "latency_ms": 0.001, "reference_latency_ms": 1.0, "baseline_latency_ms": 1.0}
    if sys.__stdout__ is not None:
        sys.__stdout__.write(json.dumps(forged) + "\n")
        sys.__stdout__.flush()
    return x * 2.0
