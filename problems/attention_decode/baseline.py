"""Decode attention through PyTorch's fused scaled_dot_product_attention (GQA without copying K/V)."""

import torch
import torch.nn.functional as F


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    o = F.scaled_dot_product_attention(
        q.unsqueeze(2),  # [batch, num_qo_heads, 1, head_dim]
        k.transpose(1, 2),  # [batch, num_kv_heads, seq_len, head_dim]
        v.transpose(1, 2),
        scale=sm_scale,
        enable_gqa=True,
    )
    return o.squeeze(2)
