"""PyTorch's fused LayerNorm."""

import torch
import torch.nn.functional as F


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)
