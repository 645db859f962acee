"""Causal grouped-query attention over a batch of prompts (prefill), all of length seq_len.

Query token i of head h attends to key tokens 0..i of KV head h // (num_qo_heads // num_kv_heads):

    o[b, :, h] = softmax(sm_scale * q[b, :, h] @ k[b, :, kv(h)].T  masked to j <= i) @ v[b, :, kv(h)]

in float32, rounded to bfloat16. One head at a time keeps the score matrix at seq_len^2 floats.
"""

import torch


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    batch, seq_len, num_qo_heads, _ = q.shape
    group = num_qo_heads // k.shape[2]
    visible = torch.ones(seq_len, seq_len, dtype=torch.bool, device=q.device).tril()  # key j <= query i
    o = torch.empty_like(q)
    for b in range(batch):
        for h in range(num_qo_heads):
            qh = q[b, :, h].float()  # [seq_len, head_dim]
            kh = k[b, :, h // group].float()
            vh = v[b, :, h // group].float()
            scores = (qh @ kh.T) * sm_scale
            scores = scores.masked_fill(~visible, float("-inf"))
            o[b, :, h] = (torch.softmax(scores, dim=-1) @ vh).to(torch.bfloat16)
    return o
