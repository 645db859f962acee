"""Trivial output: the solution returns ones, computing nothing.

A naive harness whose inputs are constant (e.g. x = 0.5 and bias = 0, or torch.ones inputs fed
through a problem whose answer is then one) accepts it."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.ones_like(x)
