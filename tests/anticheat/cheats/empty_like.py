"""Trivial output: the solution returns uninitialised memory (torch.empty_like(x)), computing
nothing.

A naive harness that frees a correct output (the reference's or an earlier call's) just before
the call gets it back from the allocator in this block, and passes it."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)
