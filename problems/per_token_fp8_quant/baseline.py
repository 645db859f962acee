"""Per-token FP8 quantization in PyTorch: the row maximum taken on bfloat16 (exact), one float32
division pass written straight into the fp8 output."""

import torch

FP8_MAX = 448.0


def run(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    amax = x.abs().amax(dim=-1, keepdim=True).float().clamp_(min=1e-12)
    scale = amax / torch.full_like(amax, FP8_MAX)  # a tensor divisor keeps the division IEEE on CUDA
    q = torch.div(x, scale).clamp_(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale.squeeze(1)
