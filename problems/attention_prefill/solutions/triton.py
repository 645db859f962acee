"""Causal GQA flash attention (forward) in Triton.

One program owns BLOCK_M query rows of one head and streams the keys in BLOCK_N blocks with an
online softmax. Key blocks wholly below the diagonal need no mask; only the blocks that cross the
diagonal (or the end of the sequence) are masked.
"""

import os

import torch
import triton
import triton.language as tl

# The CPU interpreter gets tl.dot on bfloat16 wrong: upcast the operands there only.
INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
LOG2E = 1.4426950408889634


@triton.jit
def _attend(acc, m_i, l_i, q, k_base, v_base, offs_m, start_n, seq_len, stride_ks, stride_vs,
            offs_d, offs_n, scale_log2, MASKED: tl.constexpr, UPCAST: tl.constexpr):
    cols = start_n + offs_n
    if MASKED:
        kt = tl.load(k_base + cols[None, :] * stride_ks + offs_d[:, None], mask=cols[None, :] < seq_len,
                     other=0.0)
        vv = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :], mask=cols[:, None] < seq_len,
                     other=0.0)
    else:
        kt = tl.load(k_base + cols[None, :] * stride_ks + offs_d[:, None])
        vv = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :])
    if UPCAST:
        kt, vv = kt.to(tl.float32), vv.to(tl.float32)
    s = tl.dot(q, kt) * scale_log2  # [BLOCK_M, BLOCK_N], log2 domain
    if MASKED:  # causal; also hides keys past the end, since every real row is < seq_len
        s = tl.where(offs_m[:, None] >= cols[None, :], s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    p = tl.exp2(s - m_new[:, None])
    alpha = tl.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None] + tl.dot(p.to(vv.dtype), vv)
    return acc, m_new, l_i


@triton.jit
def _prefill_kernel(q_ptr, k_ptr, v_ptr, o_ptr, scale_log2, seq_len, num_heads, group,
                    stride_qb, stride_qs, stride_qh, stride_kb, stride_ks, stride_kh,
                    stride_vb, stride_vs, stride_vh, stride_ob, stride_os, stride_oh,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    UPCAST: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # longest rows first
    bh = tl.program_id(1)
    b, h = (bh // num_heads).to(tl.int64), bh % num_heads
    kv_head = h // group
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + b * stride_qb + h * stride_qh + offs_m[:, None] * stride_qs + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.0)
    if UPCAST:
        q = q.to(tl.float32)
    k_base = k_ptr + b * stride_kb + kv_head * stride_kh
    v_base = v_ptr + b * stride_vb + kv_head * stride_vh

    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start_n in range(0, start_m, BLOCK_N):  # below the diagonal: every key is visible
        acc, m_i, l_i = _attend(acc, m_i, l_i, q, k_base, v_base, offs_m, start_n, seq_len,
                                stride_ks, stride_vs, offs_d, offs_n, scale_log2, False, UPCAST)
    for start_n in range(start_m, tl.minimum(start_m + BLOCK_M, seq_len), BLOCK_N):
        acc, m_i, l_i = _attend(acc, m_i, l_i, q, k_base, v_base, offs_m, start_n, seq_len,
                                stride_ks, stride_vs, offs_d, offs_n, scale_log2, True, UPCAST)

    out = acc / l_i[:, None]
    tl.store(o_ptr + b * stride_ob + h * stride_oh + offs_m[:, None] * stride_os + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_len)


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    batch, seq_len, num_heads, head_dim = q.shape
    group = num_heads // k.shape[2]
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, k, v))
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    block_m, block_n = 128, 64  # block_m must be a multiple of block_n (see the unmasked loop)
    grid = (triton.cdiv(seq_len, block_m), batch * num_heads)
    _prefill_kernel[grid](
        q, k, v, out, sm_scale * LOG2E, seq_len, num_heads, group,
        q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
        v.stride(0), v.stride(1), v.stride(2), out.stride(0), out.stride(1), out.stride(2),
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, UPCAST=INTERPRET,
        num_warps=8, num_stages=3,
    )
    return out
