"""FP8 GEMM with per-token (row) scales for A and per-channel (row of B = output column) scales for B:

    c[i, j] = (sum_k a[i, k] * b[j, k]) * scale_a[i] * scale_b[j]

with the fp8 values widened to float32 and the sum in float32, rounded to bfloat16 at the end.
"""

import torch


def run(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor) -> torch.Tensor:
    acc = a.float() @ b.float().T  # [m, n]; fp8 values are exact in float32
    return (acc * scale_a.float()[:, None] * scale_b.float()[None, :]).to(torch.bfloat16)
