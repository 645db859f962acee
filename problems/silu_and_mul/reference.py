"""SwiGLU activation in float32: y = silu(gate) * up, gate and up the two halves of x."""

import torch


def run(x: torch.Tensor) -> torch.Tensor:
    d = x.shape[-1] // 2
    xf = x.float()
    gate, up = xf[:, :d], xf[:, d:]
    return (gate / (1.0 + torch.exp(-gate)) * up).to(torch.bfloat16)
