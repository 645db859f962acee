"""Caching / replay keyed by a fingerprint of a few input elements (the first eight of x and of
bias): the first call for a key computes and stores the output; every later call with the same
key returns a copy of the stored output without computing it (and logs its shape to
cheated.txt).

A naive harness that feeds the timed calls the same values (even in new tensors at new
addresses) gets every timed call from the cache for the price of reading eight numbers."""

from pathlib import Path

import torch

LOG = Path(__file__).with_name("cheated.txt")
_stored: dict[object, torch.Tensor] = {}


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    key = (tuple(x.flatten()[:8].tolist()), tuple(bias[:8].tolist()))
    if key in _stored:
        with open(LOG, "a") as fh:
            fh.write(" ".join(map(str, x.shape)) + "\n")
    else:
        _stored[key] = x * 2.0 + bias[None, :]
    return _stored[key].clone()
