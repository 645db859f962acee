"""Disarmed guard, every reference to it (class 29): as disarm_guard, but the permissive guard
replaces the harness's own in every place the harness calls it from (the executor and its gate),
so no check of the solution's process runs again. The calls are honest but slow (20 ms each);
the channel reports each at a microsecond.

In-process checks cannot hold against this: only a time taken outside the solution's process
keeps the score honest."""

import gc
import sys
import time

import torch

WAIT_S = 0.02
_done = False


class _Permissive:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _disarm() -> None:
    executor = next(o for o in gc.get_objects() if type(o).__name__ == "Executor" and hasattr(o, "guard"))
    permissive = _Permissive()
    executor.guard = permissive
    sys.modules[type(executor).__module__].ReporterGate.guard = permissive
    say = type(executor).say

    def forged(self, message):
        for sample in message.get("samples") or []:
            sample["host_ms"] = 0.001
        return say(self, message)

    type(executor).say = forged


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    global _done
    if not _done:
        _done = True
        _disarm()
    time.sleep(WAIT_S)
    return x * 2.0 + bias[None, :]
