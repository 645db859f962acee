"""Rotary position embedding, NeoX style: each head's first and second halves are rotated together.

For a head vector x = [x1, x2] (two halves of head_dim / 2) at position p, with
cos = cos_sin_cache[p, :head_dim / 2] and sin = cos_sin_cache[p, head_dim / 2:]:

    out = [x1 * cos - x2 * sin,  x2 * cos + x1 * sin]

computed in float32 and rounded to bfloat16, for every head of q and of k.
"""

import torch

ROPE_THETA = 500000.0  # Llama-3's base frequency


def run(
    q: torch.Tensor, k: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    half = q.shape[-1] // 2
    cos_sin = cos_sin_cache[positions].float()  # [num_tokens, head_dim]
    cos = cos_sin[:, None, :half]  # [num_tokens, 1, half], broadcast over heads
    sin = cos_sin[:, None, half:]

    def rotate(x: torch.Tensor) -> torch.Tensor:
        x = x.float()
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(torch.bfloat16)

    return rotate(q), rotate(k)


def make_inputs(axes: dict, device: torch.device) -> dict[str, torch.Tensor]:
    """Random q and k, a real cos/sin table, and positions inside the table (global torch RNG)."""
    tokens, head_dim, max_position = axes["num_tokens"], axes["head_dim"], axes["max_position"]
    q = torch.randn(tokens, axes["num_heads"], head_dim, device=device).to(torch.bfloat16)
    k = torch.randn(tokens, axes["num_kv_heads"], head_dim, device=device).to(torch.bfloat16)
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64, device=device) / head_dim
    inv_freq = 1.0 / (ROPE_THETA**exponents)
    angles = torch.outer(torch.arange(max_position, dtype=torch.float64, device=device), inv_freq)
    cos_sin_cache = torch.cat([angles.cos(), angles.sin()], dim=-1).float()
    positions = torch.randint(0, max_position, (tokens,), device=device, dtype=torch.int64)
    return {"q": q, "k": k, "cos_sin_cache": cos_sin_cache, "positions": positions}
