"""Numerics abuse in a reduction: a row softmax whose normalising sum covers only the first 99% of
each row (at least one element), saving part of the reduction. Rows it shortened are logged to
cheated.txt.

A naive harness with a loose tolerance, or whose inputs are so flat that the skipped terms
barely move the sum, accepts it; with softmax's tolerance (rtol 1e-4) a one-percent error in the
denominator fails every element."""

from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")


def run(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    kept = max(1, int(n * 0.99))
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    if kept < n:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
    return e / e[..., :kept].sum(dim=-1, keepdim=True)
