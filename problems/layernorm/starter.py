"""Starter: a correct but slow LayerNorm kernel.

One program per row walks the row three times in chunks of 256 elements (mean, variance,
normalize), two elements per thread.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def _layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, hidden, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * hidden
    y_row = y_ptr + row * hidden
    offs = tl.arange(0, BLOCK)
    total = 0.0
    for start in range(0, hidden, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols, mask=cols < hidden, other=0.0).to(tl.float32)
        total += tl.sum(x, axis=0)
    mean = total / hidden
    sq = 0.0
    for start in range(0, hidden, BLOCK):
        cols = start + offs
        mask = cols < hidden
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        diff = tl.where(mask, x - mean, 0.0)
        sq += tl.sum(diff * diff, axis=0)
    rstd = 1.0 / tl.sqrt(sq / hidden + eps)
    for start in range(0, hidden, BLOCK):
        cols = start + offs
        mask = cols < hidden
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, ((x - mean) * rstd * w + b).to(tl.bfloat16), mask=mask)


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    x = x.contiguous()
    batch, hidden = x.shape
    y = torch.empty_like(x)
    if batch == 0 or hidden == 0:
        return y
    _layernorm_kernel[(batch,)](x, weight.contiguous(), bias.contiguous(), y, hidden, eps,
                                BLOCK=BLOCK, num_warps=4)
    return y
