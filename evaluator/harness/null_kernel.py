"""The harness's own solution of its null problem on a GPU (calibration.py): one small Triton
kernel, launched the way most solutions launch theirs, so the fixed cost measured on it includes
a Triton launch. Compiled before any user code is loaded, into a cache directory of its own."""

from __future__ import annotations

import os
import tempfile

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    _add_one[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK)
    return y


def compile_privately(device: torch.device) -> None:
    """Compile and load the kernel now, from a fresh cache directory (the job's own cache is
    writable by solutions, and could hold a kernel planted by an earlier attempt)."""
    previous = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="solarena-null-")
    try:
        run(torch.zeros(BLOCK, device=device))
        torch.cuda.synchronize(device)
    finally:
        if previous is None:
            del os.environ["TRITON_CACHE_DIR"]
        else:
            os.environ["TRITON_CACHE_DIR"] = previous
