"""Row softmax in Triton: one program per row.

Rows that fit in one block are read once and kept in registers. Longer rows take two passes: an
online pass that keeps a running max and a rescaled running sum, then a pass that writes.
"""

import torch
import triton
import triton.language as tl

MAX_SINGLE_BLOCK = 16384  # longest row kept whole in registers
LOOP_BLOCK = 4096


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n, stride_x, stride_y,
                    BLOCK: tl.constexpr, SINGLE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    offs = tl.arange(0, BLOCK)
    if SINGLE:
        mask = offs < n
        x = tl.load(x_row + offs, mask=mask, other=float("-inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_row + offs, e / tl.sum(e, axis=0), mask=mask)
    else:
        # every chunk holds a real element, so the running max is finite after the first one
        m = float("-inf")
        s = 0.0
        for start in range(0, n, BLOCK):
            cols = start + offs
            x = tl.load(x_row + cols, mask=cols < n, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
            m = m_new
        inv = 1.0 / s
        for start in range(0, n, BLOCK):
            cols = start + offs
            mask = cols < n
            x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
            tl.store(y_row + cols, tl.exp(x - m) * inv, mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    batch, n = x.shape
    if x.stride(-1) != 1:
        x = x.contiguous()
    y = torch.empty((batch, n), dtype=torch.float32, device=x.device)
    if batch == 0 or n == 0:
        return y
    single = n <= MAX_SINGLE_BLOCK
    block = triton.next_power_of_2(n) if single else LOOP_BLOCK
    num_warps = min(max(block // 1024, 4), 16)
    _softmax_kernel[(batch,)](x, y, n, x.stride(0), y.stride(0),
                              BLOCK=block, SINGLE=single, num_warps=num_warps)
    return y
