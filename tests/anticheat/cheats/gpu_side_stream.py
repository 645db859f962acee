"""Hidden work on another CUDA stream (row softmax, problems/softmax): run() queues the whole
computation, done twenty times over as a stand-in for an expensive kernel, on a side stream and
returns without waiting for it.

A naive GPU harness that records CUDA events on the current stream only (or synchronizes only
that stream) sees a call that launched nothing and took no time; by the time it compares the
output, the side stream has finished writing it."""

import torch

PASSES = 20
_side: torch.cuda.Stream | None = None


def run(x: torch.Tensor) -> torch.Tensor:
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    y = torch.empty_like(x)
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        for _ in range(PASSES):
            e = torch.exp(x - x.amax(dim=-1, keepdim=True))
            y.copy_(e / e.sum(dim=-1, keepdim=True))
    return y
