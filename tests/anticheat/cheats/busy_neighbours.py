"""Slowed baseline: at import the solution starts eight processes that spin on the CPU. Each call
stops them on entry and lets them go on return, so they busy the cores only while the harness
times the reference and the baseline, which then look slow next to the solution. Every output
is right.

A harness that times the reference and the baseline while the solution's processes run
scores the solution against a baseline it slowed down itself."""

import os
import signal

import torch

SPINNERS = 8
_children: list[int] = []


def _spin() -> None:
    while True:
        pass


for _ in range(SPINNERS):
    pid = os.fork()
    if pid == 0:
        _spin()
    _children.append(pid)


def _signal(sig: int) -> None:
    for pid in _children:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    _signal(signal.SIGSTOP)
    try:
        return x * 2.0 + bias[None, :]
    finally:
        _signal(signal.SIGCONT)
