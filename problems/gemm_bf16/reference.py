"""c = a @ b.T with float32 accumulation, rounded to bfloat16."""

import torch


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float().T).to(torch.bfloat16)
