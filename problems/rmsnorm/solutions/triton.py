"""RMSNorm in Triton: one program per row, float32 math.

A row of up to MAX_SINGLE_BLOCK elements is read once and kept in registers; a longer row is read
twice, once for the sum of squares and once to scale it.
"""

import torch
import triton
import triton.language as tl

MAX_SINGLE_BLOCK = 16384
LOOP_BLOCK = 4096


@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, hidden, eps, stride_x, stride_y,
                    BLOCK: tl.constexpr, SINGLE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    offs = tl.arange(0, BLOCK)
    if SINGLE:
        mask = offs < hidden
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(x * x, axis=0) / hidden + eps)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + offs, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, hidden, BLOCK):
            cols = start + offs
            x = tl.load(x_row + cols, mask=cols < hidden, other=0.0).to(tl.float32)
            acc += x * x
        rstd = tl.rsqrt(tl.sum(acc, axis=0) / hidden + eps)
        for start in range(0, hidden, BLOCK):
            cols = start + offs
            mask = cols < hidden
            x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_row + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    batch, hidden = x.shape
    if x.stride(-1) != 1:
        x = x.contiguous()
    weight = weight.contiguous()
    y = torch.empty((batch, hidden), dtype=x.dtype, device=x.device)
    if batch == 0 or hidden == 0:
        return y
    single = hidden <= MAX_SINGLE_BLOCK
    block = triton.next_power_of_2(hidden) if single else LOOP_BLOCK
    num_warps = min(max(block // 1024, 4), 16)
    _rmsnorm_kernel[(batch,)](x, weight, y, hidden, eps, x.stride(0), y.stride(0),
                              BLOCK=block, SINGLE=single, num_warps=num_warps)
    return y
