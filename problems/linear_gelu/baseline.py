"""Linear + GELU(tanh) in PyTorch: one cuBLAS GEMM with the bias fused, then F.gelu.

On CUDA the GEMM writes float32 (out_dtype): a bfloat16 output lets cuBLAS split long
reductions and add the pieces in bfloat16, which for large in_features and few outputs is
further from the float32 reference than the tolerance allows."""

import torch
import torch.nn.functional as F


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if x.is_cuda:
        h = torch.addmm(bias.float(), x, weight.T, out_dtype=torch.float32)
        return F.gelu(h, approximate="tanh").to(torch.bfloat16)
    return F.gelu(F.linear(x, weight, bias), approximate="tanh")
