"""Trivial output: the solution returns its input x unchanged, computing nothing.

A naive harness with inputs where the answer is close to the input (tiny values, a loose
tolerance) or without a pass-through check accepts it."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x
