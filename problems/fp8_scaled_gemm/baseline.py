"""FP8 GEMM through cuBLASLt (torch._scaled_mm with row-wise scales). cuBLASLt needs every size a
multiple of 16: other sizes are zero-padded first (exact). Without a GPU, a bfloat16 matmul of
the widened operands (fp8 values are exact in bfloat16)."""

import torch
import torch.nn.functional as F


def _pad_rows_cols(t: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    return F.pad(t.view(torch.uint8), (0, cols - t.shape[1], 0, rows - t.shape[0])).view(t.dtype)


def run(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[0]
    if not a.is_cuda:
        acc = torch.mm(a.to(torch.bfloat16), b.to(torch.bfloat16).T)
        return (acc.float() * scale_a[:, None] * scale_b[None, :]).to(torch.bfloat16)
    mp, np_, kp = (-(-d // 16) * 16 for d in (m, n, k))
    if (mp, np_, kp) != (m, n, k):
        a, b = _pad_rows_cols(a, mp, kp), _pad_rows_cols(b, np_, kp)
        scale_a, scale_b = F.pad(scale_a, (0, mp - m)), F.pad(scale_b, (0, np_ - n))
    c = torch._scaled_mm(
        a, b.T, scale_a=scale_a.view(mp, 1), scale_b=scale_b.view(1, np_), out_dtype=torch.bfloat16
    )
    return c[:m, :n]
