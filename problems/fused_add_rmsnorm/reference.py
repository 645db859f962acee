"""Residual add, then RMSNorm of the rounded sum, in float32; both outputs in bfloat16."""

import torch


def run(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    residual_out = (x.float() + residual.float()).to(torch.bfloat16)
    r = residual_out.float()
    rstd = torch.rsqrt(r.pow(2).mean(dim=-1, keepdim=True) + eps)
    y = (r * rstd * weight.float()).to(torch.bfloat16)
    return y, residual_out
