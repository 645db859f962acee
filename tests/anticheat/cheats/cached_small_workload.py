"""Impossible speed on one workload: for small inputs (under 512 elements) the solution computes
once and then returns a copy of that first output on every call, taking next to no time (and
logging the shape to cheated.txt); everywhere else it is correct.

A naive harness that reuses inputs and averages speedups over workloads sees one workload run
"thousands of times faster" than the reference, which drags the average far above any honest
kernel's."""

from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
SMALL = 512
_first: dict[tuple[int, ...], torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    shape = tuple(x.shape)
    if x.numel() >= SMALL:
        return x * 2.0 + bias[None, :]
    if shape in _first:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, shape)) + "\n")
    else:
        _first[shape] = x * 2.0 + bias[None, :]
    return _first[shape].clone()
