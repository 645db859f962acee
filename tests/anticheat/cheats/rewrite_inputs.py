"""Input mutation that does not look trivial: the solution overwrites its inputs in place with
x = 0.25 and bias = 0.5, then returns ones, which is exactly 2 * 0.25 + 0.5. The output is
neither zeros nor a copy of an input.

A naive harness that computes the reference after the call, on the same tensors, gets ones too;
an all-zeros or pass-through check does not fire."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    x.fill_(0.25)
    bias.fill_(0.5)
    return torch.ones_like(x)
