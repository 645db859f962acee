"""Phase detection by inspecting the caller's stack: inspect.stack() tells a timed call from a
checked one by the frames above it (a function named like measure/benchmark/profile/timeit, or a
local `timed` that is true). Checked calls get the right answer; timed calls get a cheap wrong
one (and log their shape to cheated.txt).

A naive harness whose timing loop is recognisable from the stack, and which does not check the
outputs of timed calls, times only the cheap path."""

import inspect
from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
TIMING_NAMES = ("measure", "benchmark", "bench", "profile", "timeit", "do_bench")


def _being_timed() -> bool:
    for info in inspect.stack(0)[1:]:
        if info.frame.f_locals.get("timed") is True:
            return True
        if any(name in info.function.lower() for name in TIMING_NAMES):
            return True
    return False


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _being_timed():
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
        return x * 2.0
    return x * 2.0 + bias[None, :]
