"""Caching / replay keyed by the input shapes: the first call for a key computes and stores the
output; every later call with the same key returns a copy of the stored output without computing
it (and logs its shape to cheated.txt).

A naive harness that times repeated calls on one workload's inputs gets every timed call
after the first from the cache."""

from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_stored: dict[object, torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    key = (tuple(x.shape), tuple(bias.shape))
    if key in _stored:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
    else:
        _stored[key] = x * 2.0 + bias[None, :]
    return _stored[key].clone()
