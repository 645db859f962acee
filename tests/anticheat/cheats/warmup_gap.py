"""Phase detection by timing the gaps between calls: for each input shape the gaps before the
first three calls (the checks, with a comparison in between) set a baseline; a later call that
comes in much faster than that (back to back, as in a warm-up or timing loop) returns the
previous output instead of computing (and logs its shape to cheated.txt).

A naive harness whose timing loop calls back to back, without checking in between, is served
stale outputs at no cost, while its checked calls get the right answer."""

import time
from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_gaps: dict[tuple[int, ...], list[float]] = {}
_last_return: dict[tuple[int, ...], float] = {}
_previous: dict[tuple[int, ...], torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    shape = tuple(x.shape)
    now = time.perf_counter()
    gaps = _gaps.setdefault(shape, [])
    gap = now - _last_return[shape] if shape in _last_return else None
    if gap is not None and len(gaps) >= 3 and gap < 0.5 * min(gaps):
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, shape)) + "\n")
        y = _previous[shape].clone()
    else:
        if gap is not None and len(gaps) < 3:
            gaps.append(gap)
        y = x * 2.0 + bias[None, :]
        _previous[shape] = y.clone()
    _last_return[shape] = time.perf_counter()
    return y
