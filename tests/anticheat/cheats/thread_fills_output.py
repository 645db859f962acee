"""Hidden work on a thread: run() returns an uninitialised output at once and starts a thread
that, a millisecond later, writes the right values into it.

A naive harness stops its clock when run() returns and compares the output later (after a sync,
after computing the reference): by then the thread has filled it, so the call looks correct and
takes no time."""

import threading
import time

import torch


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)

    def fill() -> None:
        time.sleep(0.001)
        torch.mul(x, 2.0, out=y)
        y.add_(bias[None, :])

    threading.Thread(target=fill, daemon=True).start()
    return y
