"""Grouped-query attention for one decode step over a dense KV cache.

Every query head h attends to all seq_len keys of KV head h // (num_qo_heads // num_kv_heads):

    o[b, h] = softmax(sm_scale * K[b, :, kv(h)] @ q[b, h]) @ V[b, :, kv(h)]

in float32, rounded to bfloat16. No causal mask: the new token sees the whole cache.
"""

import torch


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    batch, num_qo_heads, head_dim = q.shape
    num_kv_heads = k.shape[2]
    group = num_qo_heads // num_kv_heads
    # query heads of one KV head are consecutive: head h uses KV head h // group
    qf = q.float().view(batch, num_kv_heads, group, head_dim)
    kf, vf = k.float(), v.float()  # [batch, seq_len, num_kv_heads, head_dim]
    scores = torch.einsum("bhgd,bshd->bhgs", qf, kf) * sm_scale
    probs = torch.softmax(scores, dim=-1)
    o = torch.einsum("bhgs,bshd->bhgd", probs, vf)
    return o.reshape(batch, num_qo_heads, head_dim).to(torch.bfloat16)
