"""Aliased fallback: torch.tensordot over one axis is the forbidden matrix product (PyTorch runs it
as aten::mm) under another name."""

import torch


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.tensordot(a, b, dims=1)
