"""cuBLAS through torch.nn.functional.linear (b is the [n, k] weight).

cuBLAS may split k and add the partial sums in bfloat16, which misses the tolerance for long k and
narrow n; the baseline asks for float32 reductions, as the reference accumulates in float32.
"""

import torch
import torch.nn.functional as F


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    matmul = torch.backends.cuda.matmul
    reduced = matmul.allow_bf16_reduced_precision_reduction
    matmul.allow_bf16_reduced_precision_reduction = False
    try:
        return F.linear(a, b)
    finally:
        matmul.allow_bf16_reduced_precision_reduction = reduced
