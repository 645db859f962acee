"""RMSNorm in float32: y = x * rsqrt(mean(x^2) + eps) * weight, rounded to bfloat16 once."""

import torch


def run(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xf * rstd * weight.float()).to(torch.bfloat16)
