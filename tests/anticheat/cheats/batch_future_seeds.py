"""Batching across calls with the harness's own seeds: the solution looks up its caller's frames
for the batch of seeds this request covers and the function that turns a seed into inputs
(`seeds` and `self.make_args`), makes the inputs of the calls still to come, and computes all
their outputs in the current call. The next calls return those outputs without computing
anything (and log their shape to cheated.txt).

A harness that hands several calls' seeds to the solution's process at once and times each call
separately sees one slow call and a run of free ones: the median collapses."""

import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_ahead: deque[torch.Tensor] = deque()


def _visible_batch() -> tuple[list[int], Callable[[int], list[torch.Tensor]]] | None:
    frame = sys._getframe(2)
    while frame is not None:
        seeds, owner = frame.f_locals.get("seeds"), frame.f_locals.get("self")
        if isinstance(seeds, list) and seeds and all(type(s) is int for s in seeds):
            if callable(getattr(owner, "make_args", None)):
                return seeds, owner.make_args
        frame = frame.f_back
    return None


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _ahead:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
        return _ahead.popleft()
    batch = _visible_batch()
    if batch is not None:
        seeds, make_args = batch
        upcoming = [make_args(s) for s in seeds]
        now = next((i for i, args in enumerate(upcoming) if torch.equal(args[0], x)), len(upcoming))
        _ahead.extend(a[0] * 2.0 + a[1][None, :] for a in upcoming[now + 1:])
    return x * 2.0 + bias[None, :]
