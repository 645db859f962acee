"""A thread racing the harness on the GPU (row softmax, problems/softmax): run() returns an
uninitialised output and starts a thread that, a millisecond later, launches the kernels that
fill it.

A naive GPU harness stops its clock at the return and synchronizes before comparing: by then the
thread's kernels have run, outside the timed window."""

import threading
import time

import torch


def run(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    device = x.device

    def late() -> None:
        time.sleep(0.001)
        with torch.cuda.device(device):
            e = torch.exp(x - x.amax(dim=-1, keepdim=True))
            y.copy_(e / e.sum(dim=-1, keepdim=True))

    threading.Thread(target=late, daemon=True).start()
    return y
