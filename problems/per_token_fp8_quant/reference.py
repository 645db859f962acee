"""Dynamic per-token FP8 (e4m3) quantization of activations.

For each row (token) of x:

    scale = max(max_i |x[i]|, 1e-12) / 448        (448 = largest finite float8_e4m3fn)
    q     = clamp(x / scale, -448, 448) rounded to float8_e4m3fn (round to nearest even)

all in float32, both divisions IEEE-rounded; x ~= q * scale.
"""

import torch

FP8_MAX = 448.0


def run(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    xf = x.float()
    amax = xf.abs().amax(dim=-1).clamp(min=1e-12)  # [tokens]
    # divide by a tensor: on CUDA, dividing by a Python number is done as a reciprocal multiply,
    # which can move q by one fp8 step; this keeps both divisions IEEE-rounded on every device
    scale = amax / torch.full_like(amax, FP8_MAX)
    q = (xf / scale[:, None]).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale
