"""Disarmed guard (class 29): at its first call the solution finds the harness's executor (through
gc) and gives it a new integrity guard, one whose checks pass whatever happened: an attribute
that the guard's snapshot never looked at by value. It then computes honestly but slowly
(a 20 ms wait in every call) and has the channel report each call at a microsecond.

A harness whose guard only checks names finds nothing wrong; a harness that takes the time the
solution's process reports then scores the kernel 20,000 times faster than it ran. With
EVERYWHERE the permissive guard also replaces the one the harness's gate keeps, so no check of
the solution's process runs again: in-process checks cannot hold against that, and only a time
taken outside the solution's process keeps the score honest."""

import gc
import sys
import time

import torch

WAIT_S = 0.02
EVERYWHERE = False
_done = False


class _Permissive:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _executor():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Executor" and hasattr(obj, "guard"):
            return obj
    return None


def _disarm() -> None:
    executor = _executor()
    executor.guard = _Permissive()
    if EVERYWHERE:
        sys.modules[type(executor).__module__].ReporterGate.guard = executor.guard
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
