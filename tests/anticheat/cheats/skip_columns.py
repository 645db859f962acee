"""Numerics abuse, skipped work: the bias is added to the first 90% of the columns only (the
rest get 2 * x), saving a tenth of the bias traffic and arithmetic.

A naive harness that only requires most elements to match (e.g. 90%), or that checks a sample of
the leading elements, accepts it."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y = x * 2.0
    kept = int(x.shape[1] * 0.9)
    y[:, :kept] += bias[None, :kept]
    return y
