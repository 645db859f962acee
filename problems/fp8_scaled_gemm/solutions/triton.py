"""FP8 (e4m3) GEMM with per-row scales in Triton: fp8 tensor-core dots accumulated in float32,
both scales applied once in the epilogue, grouped tile order for L2 reuse.

Hopper's fp8 tensor cores keep a narrower accumulator inside one instruction chain; the partial
sums are promoted into the float32 accumulator every BLOCK_K products (max_num_imprecise_acc),
which keeps long reductions (k ~ 28k) as accurate as a float32 GEMM."""

import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_gemm_kernel(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * grid_n  # GROUP_M rows of tiles share their B columns in L2
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # wrap out-of-range rows/columns onto valid ones so only K needs a load mask
    rows_a, rows_b = offs_m % M, offs_n % N
    a_ptrs = a_ptr + rows_a[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + rows_b[None, :].to(tl.int64) * stride_bn + offs_k[:, None] * stride_bk
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k0, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k0, other=0.0)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=BLOCK_K)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    scale_a = tl.load(scale_a_ptr + rows_a)
    scale_b = tl.load(scale_b_ptr + rows_b)
    c = acc * scale_a[:, None] * scale_b[None, :]
    c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _config(m: int) -> dict[str, int]:
    if m <= 64:  # decode-sized: narrow M tiles, wide N
        return {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8, "num_warps": 4, "num_stages": 4}
    # with promotion, deep K tiles beat wide N tiles (fewer accumulator round trips)
    return {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 256, "GROUP_M": 8, "num_warps": 8, "num_stages": 3}


def _pad_k(t: torch.Tensor, multiple: int = 16) -> torch.Tensor:
    """Rows zero-padded to a multiple of 16 elements. The kernel then sees an aligned row stride
    and a K divisible by 16, so its loads stay vectorized and asynchronous; unaligned rows would
    cost far more than this copy. The zero columns add nothing to the dot products."""
    k = t.shape[1]
    if k % multiple == 0 and t.stride(1) == 1 and t.stride(0) % multiple == 0:
        return t
    padded = torch.empty((t.shape[0], triton.cdiv(k, multiple) * multiple), dtype=t.dtype, device=t.device)
    padded[:, :k] = t
    padded[:, k:] = 0
    return padded


def run(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor) -> torch.Tensor:
    m, k, n = a.shape[0], a.shape[1], b.shape[0]
    c = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    if m == 0 or n == 0:
        return c
    a, b = _pad_k(a), _pad_k(b)
    scale_a, scale_b = scale_a.float().contiguous(), scale_b.float().contiguous()
    cfg = _config(m)
    cfg["BLOCK_K"] = min(cfg["BLOCK_K"], max(32, triton.next_power_of_2(k)))  # short reductions
    grid = (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
    _fp8_gemm_kernel[grid](a, b, scale_a, scale_b, c, m, n, a.shape[1], a.stride(0), a.stride(1),
                           b.stride(0), b.stride(1), c.stride(0), c.stride(1), **cfg)
    return c
