"""Causal grouped-query attention over a batch of prompts (prefill), all of length seq_len.

Query token i of head h attends to key tokens 0..i of KV head h // (num_qo_heads // num_kv_heads):

    o[b, :, h] = softmax(sm_scale * q[b, :, h] @ k[b, :, kv(h)].T  masked to j <= i) @ v[b, :, kv(h)]

in float32, rounded to bfloat16. The query heads sharing a KV head are computed together, a few
sequences at a time, so the float32 scores of one step stay under SCORES_PER_STEP elements.
"""

import torch

SCORES_PER_STEP = 1 << 28  # 1 GiB of float32 scores


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    batch, seq_len, num_qo_heads, head_dim = q.shape
    num_kv_heads = k.shape[2]
    group = num_qo_heads // num_kv_heads
    visible = torch.ones(seq_len, seq_len, dtype=torch.bool, device=q.device).tril()  # key j <= query i
    # [batch, kv head, group, seq, dim]: query head h = kv head * group + g
    qg = q.view(batch, seq_len, num_kv_heads, group, head_dim).permute(0, 2, 3, 1, 4)
    kg = k.permute(0, 2, 1, 3).unsqueeze(2)  # [batch, kv head, 1, seq, dim]
    vg = v.permute(0, 2, 1, 3).unsqueeze(2)
    o = torch.empty_like(q)
    og = o.view(batch, seq_len, num_kv_heads, group, head_dim).permute(0, 2, 3, 1, 4)
    step = max(1, SCORES_PER_STEP // (num_qo_heads * seq_len * seq_len))
    for b in range(0, batch, step):
        scores = (qg[b:b + step].float() @ kg[b:b + step].float().transpose(-1, -2)) * sm_scale
        scores = scores.masked_fill(~visible, float("-inf"))
        og[b:b + step] = (torch.softmax(scores, dim=-1) @ vg[b:b + step].float()).to(torch.bfloat16)
    return o
