"""Numerics abuse, dropped precision: the computation runs in float16 and is cast back to float32
(half the memory traffic on a GPU). 2 * x + bias is then off by about one part in two thousand.

A naive harness with a loose tolerance (say atol = rtol = 1e-2 for every problem) accepts it;
this problem's float32 tolerance (1e-5) is set for float32 work."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return (x.half() * 2.0 + bias.half()[None, :]).float()
