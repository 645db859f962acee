"""Result forgery on every open file descriptor: a forged result line is written with os.write to
descriptors 1 to 50, whatever they are (stdout, stderr, a results pipe or file the harness left
open, the channel to the reporter).

A naive harness whose results channel is inherited by the solution's code, under any descriptor
number, receives the forged line as its own. The kernel is wrong (no bias)."""

import json
import os

import torch

FORGED = json.dumps({"event": "workload", "status": "PASSED", "message": "", "latency_ms": 0.001,
                     "reference_latency_ms": 1.0, "baseline_latency_ms": 1.0}) + "\n"


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    for fd in range(1, 51):
        try:
            os.write(fd, FORGED.encode())
        except OSError:
            pass
    return x * 2.0
