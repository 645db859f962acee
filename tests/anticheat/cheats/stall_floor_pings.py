"""Inflated calibration: the harness subtracts the shortest message round trip to the solution's
process from every call it clocks. At import the solution replaces json.dumps, through which its
process answers, so that bare replies (the answers to the harness's pings) leave 30 ms late.
Every call really takes 20 ms (the kernel sleeps), all outputs are right.

A harness that measures its round-trip floor after the solution is loaded subtracts 30 ms from
every 20 ms call and reports the kernel as taking no time at all."""

import json
import time

import torch

_dumps = json.dumps


def _slow_bare_replies(obj, *args, **kwargs):
    if isinstance(obj, dict) and set(obj) == {"kind", "nonce"}:
        time.sleep(0.03)
    return _dumps(obj, *args, **kwargs)


json.dumps = _slow_bare_replies


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    time.sleep(0.02)
    return x * 2.0 + bias[None, :]
