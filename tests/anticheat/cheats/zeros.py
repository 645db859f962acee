"""Trivial output: the solution returns zeros, computing nothing.

A naive harness whose inputs are zeros (or so small that the answer is within atol of zero)
accepts it."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x)
