"""Predictable inputs, hard-coded shapes: the solution is right only for the shapes in the
problem's published workload and smoke files (4x256, 8x128, 1024x4096, 4096x8192), where it
could be tuned or checked by hand, and returns a cheap wrong answer for any other shape.

A naive harness that evaluates only the published workloads scores it as a perfect kernel."""

import torch

KNOWN_SHAPES = {(4, 256), (8, 128), (1024, 4096), (4096, 8192)}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if tuple(x.shape) in KNOWN_SHAPES:
        return x * 2.0 + bias[None, :]
    return x * 2.0
