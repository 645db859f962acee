"""Per-token FP8 quantization in Triton: one program per row, a first pass for the row's absolute
maximum, a second (mostly from cache) that scales, clamps and rounds to float8_e4m3fn."""

import os

import torch
import triton
import triton.language as tl

# The CPU interpreter's float32 -> fp8 conversion does not round to nearest even (and can wrap
# at the top of a binade): there the kernel stores the clamped float32 values and torch rounds.
INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
FP8_MAX = 448.0


@triton.jit
def _quant_kernel(x_ptr, q_ptr, scale_ptr, hidden, stride_x, stride_q,
                  FP8_MAX: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    q_row = q_ptr + row * stride_q
    offs = tl.arange(0, BLOCK)
    amax = tl.zeros([BLOCK], tl.float32)
    for start in range(0, hidden, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < hidden, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.math.div_rn(tl.maximum(tl.max(amax, 0), 1e-12), FP8_MAX)  # IEEE division, as torch
    tl.store(scale_ptr + row, scale)
    for start in range(0, hidden, BLOCK):
        mask = start + offs < hidden
        x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.minimum(tl.maximum(tl.math.div_rn(x, scale), -FP8_MAX), FP8_MAX)
        tl.store(q_row + start + offs, y.to(q_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    tokens, hidden = x.shape
    if x.stride(-1) != 1:
        x = x.contiguous()
    q_dtype = torch.float32 if INTERPRET else torch.float8_e4m3fn
    q = torch.empty((tokens, hidden), dtype=q_dtype, device=x.device)
    scale = torch.empty(tokens, dtype=torch.float32, device=x.device)
    if tokens > 0:
        block = min(triton.next_power_of_2(max(hidden, 1)), 4096)
        _quant_kernel[(tokens,)](x, q, scale, hidden, x.stride(0), q.stride(0),
                                 FP8_MAX=FP8_MAX, BLOCK=block, num_warps=4 if block <= 1024 else 8)
    if INTERPRET:
        q = q.to(torch.float8_e4m3fn)
    return q, scale
