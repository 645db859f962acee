"""Input mutation: the solution zeroes its inputs in place (x.zero_(), bias.zero_()) and returns
zeros, which is what the reference computes from the zeroed inputs.

A naive harness that computes the reference after the call, on the same tensors it passed to
the solution, compares zeros with zeros."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    x.zero_()
    bias.zero_()
    return torch.zeros_like(x)
