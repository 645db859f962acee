"""Causal prefill attention through PyTorch's fused scaled_dot_product_attention (flash on GPU)."""

import torch
import torch.nn.functional as F


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    o = F.scaled_dot_product_attention(
        q.transpose(1, 2),  # [batch, heads, seq_len, head_dim] views, no copies
        k.transpose(1, 2),
        v.transpose(1, 2),
        is_causal=True,
        scale=sm_scale,
        enable_gqa=True,
    )
    return o.transpose(1, 2)
