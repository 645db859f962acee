"""Reading the answer from freed memory: the solution allocates a few uninitialised tensors of
the output's shape and returns the first one that holds something that looks like a computed
result (finite, not all zeros), hoping the allocator handed back the block where the expected
output or an earlier correct output was freed. It computes nothing.

A naive harness that computes the expected output in the solution's process and frees it just
before the call (or frees each checked output) leaves the answer in the next block handed out."""

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    blocks = [torch.empty_like(x) for _ in range(8)]
    for block in blocks:
        if bool(torch.isfinite(block).all()) and bool(block.any()):
            return block
    return blocks[0]
