"""Hidden work deferred past the return (row softmax, problems/softmax): run() queues on a side
stream a spin of about a millisecond (torch.cuda._sleep, standing in for an expensive kernel)
followed by the write of the output, and returns at once, long before the output exists.

A naive GPU harness that stops its clock when run() returns, or when the current stream is idle,
never counts the spin; by the time it compares the output, the deferred write has landed."""

import torch

SPIN_CYCLES = 2_000_000  # about 1 ms at the H200's clock
_side: torch.cuda.Stream | None = None


def run(x: torch.Tensor) -> torch.Tensor:
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    y = torch.empty_like(x)
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        torch.cuda._sleep(SPIN_CYCLES)
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        y.copy_(e / e.sum(dim=-1, keepdim=True))
    return y
