"""Split-KV (flash-decoding) GQA decode attention in Triton.

Each program takes the query heads of one KV head (a block of the group) and one slice of the
keys, so small batches still fill the GPU; a second kernel merges the slices' partial softmaxes.
"""

import os

import torch
import triton
import triton.language as tl

# The CPU interpreter gets tl.dot on bfloat16 wrong: upcast the operands there only.
INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
BLOCK_N = 64  # keys per iteration
LOG2E = 1.4426950408889634


@triton.jit
def _partial_kernel(q_ptr, k_ptr, v_ptr, o_ptr, part_acc_ptr, part_lse_ptr,
                    scale_log2, seq_len, keys_per_split, num_kv_heads, group, group_blocks,
                    stride_qb, stride_qh, stride_kb, stride_ks, stride_kh,
                    stride_vb, stride_vs, stride_vh, stride_ob, stride_oh,
                    HEAD_DIM: tl.constexpr, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr,
                    SINGLE_SPLIT: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    num_splits = tl.num_programs(1)
    g_block = pid % group_blocks
    kv_head = (pid // group_blocks) % num_kv_heads
    b = (pid // group_blocks // num_kv_heads).to(tl.int64)

    offs_g = g_block * BLOCK_G + tl.arange(0, BLOCK_G)
    heads = kv_head * group + offs_g
    g_mask = offs_g < group
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)

    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + offs_d[None, :],
                mask=g_mask[:, None], other=0.0)
    if UPCAST:
        q = q.to(tl.float32)
    k_base = k_ptr + b * stride_kb + kv_head * stride_kh
    v_base = v_ptr + b * stride_vb + kv_head * stride_vh

    m_i = tl.full([BLOCK_G], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_G], tl.float32)
    acc = tl.zeros([BLOCK_G, HEAD_DIM], tl.float32)
    start = split * keys_per_split
    end = tl.minimum(start + keys_per_split, seq_len)
    for n0 in range(start, end, BLOCK_N):
        cols = n0 + offs_n
        n_mask = cols < end
        kt = tl.load(k_base + cols[None, :] * stride_ks + offs_d[:, None], mask=n_mask[None, :], other=0.0)
        vv = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :], mask=n_mask[:, None], other=0.0)
        if UPCAST:
            kt, vv = kt.to(tl.float32), vv.to(tl.float32)
        s = tl.dot(q, kt) * scale_log2  # [BLOCK_G, BLOCK_N], log2 domain
        s = tl.where(n_mask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(vv.dtype), vv)
        m_i = m_new

    if SINGLE_SPLIT:
        out = acc / l_i[:, None]
        tl.store(o_ptr + b * stride_ob + heads[:, None] * stride_oh + offs_d[None, :],
                 out.to(o_ptr.dtype.element_ty), mask=g_mask[:, None])
    else:
        row = (b * num_kv_heads * group + heads) * num_splits + split  # [batch, heads, splits]
        tl.store(part_acc_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None],
                 mask=g_mask[:, None])
        tl.store(part_lse_ptr + row, m_i + tl.log2(l_i), mask=g_mask)


@triton.jit
def _combine_kernel(part_acc_ptr, part_lse_ptr, o_ptr, num_heads, num_splits, stride_ob, stride_oh,
                    HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # b * num_heads + h
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, HEAD_DIM)
    s_mask = offs_s < num_splits
    lse = tl.load(part_lse_ptr + row * num_splits + offs_s, mask=s_mask, other=float("-inf"))
    weights = tl.exp2(lse - tl.max(lse, 0))
    weights = weights / tl.sum(weights, 0)
    parts = tl.load(part_acc_ptr + (row * num_splits + offs_s)[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=s_mask[:, None], other=0.0)
    out = tl.sum(parts * weights[:, None], 0)
    b, h = row // num_heads, row % num_heads
    tl.store(o_ptr + b * stride_ob + h * stride_oh + offs_d, out.to(o_ptr.dtype.element_ty))


def _target_programs(device: torch.device) -> int:
    if device.type == "cuda":
        return 2 * torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # the interpreter: a few splits, so the merge path is exercised too


def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    batch, num_heads, head_dim = q.shape
    seq_len, num_kv_heads = k.shape[1], k.shape[2]
    group = num_heads // num_kv_heads
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, k, v))
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)

    block_g = max(16, min(64, triton.next_power_of_2(group)))  # tl.dot needs >= 16 rows
    group_blocks = triton.cdiv(group, block_g)
    base_programs = batch * num_kv_heads * group_blocks
    key_blocks = triton.cdiv(seq_len, BLOCK_N)
    splits = max(1, min(key_blocks, triton.cdiv(_target_programs(q.device), base_programs)))
    keys_per_split = triton.cdiv(key_blocks, splits) * BLOCK_N
    splits = triton.cdiv(seq_len, keys_per_split)  # no empty slice
    single = splits == 1
    if single:
        part_acc = part_lse = out  # unused
    else:
        part_acc = torch.empty(batch * num_heads * splits * head_dim, dtype=torch.float32, device=q.device)
        part_lse = torch.empty(batch * num_heads * splits, dtype=torch.float32, device=q.device)

    _partial_kernel[(base_programs, splits)](
        q, k, v, out, part_acc, part_lse, sm_scale * LOG2E, seq_len, keys_per_split,
        num_kv_heads, group, group_blocks,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), k.stride(2),
        v.stride(0), v.stride(1), v.stride(2), out.stride(0), out.stride(1),
        HEAD_DIM=head_dim, BLOCK_G=block_g, BLOCK_N=BLOCK_N, SINGLE_SPLIT=single, UPCAST=INTERPRET,
        num_warps=4, num_stages=3,
    )
    if not single:
        _combine_kernel[(batch * num_heads,)](
            part_acc, part_lse, out, num_heads, splits, out.stride(0), out.stride(1),
            HEAD_DIM=head_dim, BLOCK_S=triton.next_power_of_2(splits), num_warps=4,
        )
    return out
