"""Rotary embedding in one Triton launch: each program rotates a block of heads of one token,
q heads and k heads alike, reading the token's cos/sin row once."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(x_ptr, out_ptr, token, head_block, num_heads, half, cos, sin, offs_d,
                  stride_xt, stride_xh, stride_ot, stride_oh, BLOCK_H: tl.constexpr):
    heads = head_block * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = (heads[:, None] < num_heads) & (offs_d[None, :] < half)
    x_first = x_ptr + token * stride_xt + heads[:, None] * stride_xh + offs_d[None, :]
    x1 = tl.load(x_first, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_first + half, mask=mask, other=0.0).to(tl.float32)
    o_first = out_ptr + token * stride_ot + heads[:, None] * stride_oh + offs_d[None, :]
    tl.store(o_first, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o_first + half, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rope_kernel(q_ptr, k_ptr, q_out_ptr, k_out_ptr, cache_ptr, pos_ptr,
                 num_heads, num_kv_heads, half,
                 stride_qt, stride_qh, stride_kt, stride_kh,
                 stride_qot, stride_qoh, stride_kot, stride_koh, stride_cache,
                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    head_block = tl.program_id(1)
    offs_d = tl.arange(0, BLOCK_D)
    pos = tl.load(pos_ptr + token)
    cos = tl.load(cache_ptr + pos * stride_cache + offs_d, mask=offs_d < half, other=0.0)
    sin = tl.load(cache_ptr + pos * stride_cache + half + offs_d, mask=offs_d < half, other=0.0)
    cos, sin = cos[None, :], sin[None, :]
    q_blocks = tl.cdiv(num_heads, BLOCK_H)
    if head_block < q_blocks:
        _rotate_heads(q_ptr, q_out_ptr, token, head_block, num_heads, half, cos, sin, offs_d,
                      stride_qt, stride_qh, stride_qot, stride_qoh, BLOCK_H)
    else:
        _rotate_heads(k_ptr, k_out_ptr, token, head_block - q_blocks, num_kv_heads, half, cos, sin,
                      offs_d, stride_kt, stride_kh, stride_kot, stride_koh, BLOCK_H)


def run(
    q: torch.Tensor, k: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    tokens, num_heads, head_dim = q.shape
    num_kv_heads = k.shape[1]
    q = q if q.stride(-1) == 1 else q.contiguous()
    k = k if k.stride(-1) == 1 else k.contiguous()
    cos_sin_cache = cos_sin_cache if cos_sin_cache.stride(-1) == 1 else cos_sin_cache.contiguous()
    q_out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    k_out = torch.empty(k.shape, dtype=k.dtype, device=k.device)
    if tokens == 0:
        return q_out, k_out
    half = head_dim // 2
    block_d = triton.next_power_of_2(half)
    block_h = max(1, min(triton.next_power_of_2(max(num_heads, num_kv_heads)), 2048 // block_d))
    grid = (tokens, triton.cdiv(num_heads, block_h) + triton.cdiv(num_kv_heads, block_h))
    _rope_kernel[grid](
        q, k, q_out, k_out, cos_sin_cache, positions, num_heads, num_kv_heads, half,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1),
        q_out.stride(0), q_out.stride(1), k_out.stride(0), k_out.stride(1), cos_sin_cache.stride(0),
        BLOCK_H=block_h, BLOCK_D=block_d, num_warps=4,
    )
    return q_out, k_out
