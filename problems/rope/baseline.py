"""Rotary embedding in PyTorch: one gather of the table, rotate_half and a fused multiply-add."""

import torch


def run(
    q: torch.Tensor, k: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    half = q.shape[-1] // 2
    cos, sin = cos_sin_cache.index_select(0, positions).unsqueeze(1).split(half, dim=-1)
    cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([-sin, sin], dim=-1)
    return _rotate(q, cos, sin), _rotate(k, cos, sin)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x = x.float()
    swapped = torch.cat([x[..., half:], x[..., :half]], dim=-1)  # [x2, x1]; sin carries the sign
    return torch.addcmul(x * cos, swapped, sin).to(torch.bfloat16)
