"""Caching / replay keyed by the inputs' data pointers: the first call for a key computes and
stores the output; every later call with the same key returns a copy of the stored output without
computing it (and logs its shape to cheated.txt).

A naive harness that calls again on the same tensors gets every timed call from the cache.
The allocator hands freed blocks back, so even fresh inputs can land at an old address."""

from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_stored: dict[object, torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    key = (x.data_ptr(), bias.data_ptr())
    if key in _stored:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
    else:
        _stored[key] = x * 2.0 + bias[None, :]
    return _stored[key].clone()
