"""Caching / replay keyed by a hash of the inputs' full contents: the first call for a key
computes and stores the output; every later call with the same key returns a copy of the stored
output without computing it (and logs its shape to cheated.txt).

A naive harness that repeats inputs (warm-up and timed calls on the same data, or the
correctness inputs timed again) gets those calls from the cache: always right, never computed."""

import hashlib
from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_stored: dict[object, torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    key = (hashlib.sha1(x.contiguous().numpy().tobytes() + bias.contiguous().numpy().tobytes()).hexdigest())
    if key in _stored:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
    else:
        _stored[key] = x * 2.0 + bias[None, :]
    return _stored[key].clone()
