"""Result forgery then an early exit: in the middle of its first call the solution prints a
forged "PASSED" result and ends its process with exit status 0, before any check can run.

A naive harness that runs the solution in its own process and trusts a clean exit plus the last
result line it printed reports the forgery as the verdict."""

import json
import os
import sys

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    forged = json.dumps({"event": "workload", "status": "PASSED", "message": "", "latency_ms": 0.001,
                         "reference_latency_ms": 1.0, "baseline_latency_ms": 1.0}) + "\n"
    for stream in (sys.stdout, sys.__stdout__):
        if stream is not None:
            stream.write(forged)
            stream.flush()
    os._exit(0)
