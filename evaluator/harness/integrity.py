"""Integrity checks in the solution's process: the functions timing and checking rely on must be
the ones the harness started with, no tracer may watch the harness, and a call must not leave
threads behind. Taken before the solution is imported, verified after every call.

This raises the bar, it is not a wall: code in a process can in principle rewrite that process.
The wall is elsewhere: results come only from the reporter process, which checks every output
itself and bounds the reported times by what it saw from outside (see docs/security.md).
"""

from __future__ import annotations

import builtins
import sys
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

HARNESS_MODULES = ("evaluator.harness.executor", "evaluator.harness.timing", "evaluator.harness.inputs",
                   "evaluator.harness.integrity", "evaluator.harness.l2", "evaluator.harness.checks",
                   "evaluator.harness.fallback")
BUILTINS = ("type", "isinstance", "len", "min", "max", "sorted", "float", "int", "range", "zip",
            "getattr", "id", "print")


class IntegrityViolation(Exception):
    """Something the harness relies on was tampered with; the message says what."""


@dataclass(frozen=True)
class _Watched:
    name: str
    owner: Any
    attr: str
    value: Any
    code: Any
    defaults: Any


def _critical() -> list[tuple[str, Any, str]]:
    """(readable name, owner, attribute) of everything the measurement relies on."""
    items: list[tuple[str, Any, str]] = [
        (f"time.{n}", time, n) for n in ("perf_counter", "perf_counter_ns", "monotonic", "time")
    ]
    items += [(f"torch.cuda.{n}", torch.cuda, n) for n in ("synchronize", "Event", "current_stream")]
    items += [(f"torch.cuda.Event.{n}", torch.cuda.Event, n)
              for n in ("record", "elapsed_time", "synchronize", "query")]
    items += [(f"torch.Tensor.{n}", torch.Tensor, n)
              for n in ("clone", "copy_", "fill_", "zero_", "__eq__", "to")]
    items += [(f"torch.{n}", torch, n) for n in ("empty", "randn", "rand", "randint", "Generator")]
    items += [(f"torch.profiler.{n}", torch.profiler, n) for n in ("profile", "record_function")]
    items += [(f"threading.{n}", threading, n) for n in ("enumerate", "active_count")]
    items += [(f"builtins.{n}", builtins, n) for n in BUILTINS]
    for module_name in HARNESS_MODULES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        items.append((f"sys.modules[{module_name!r}]", sys.modules, module_name))
        for attr, value in vars(module).items():
            if not attr.startswith("__") and not isinstance(value, (dict, list, set)):
                items.append((f"{module_name}.{attr}", module, attr))  # every global it relies on
    return items


def _read(owner: Any, attr: str) -> Any:
    if isinstance(owner, dict):
        return owner.get(attr)
    return owner.__dict__.get(attr, getattr(owner, attr, None))


class Guard:
    """A snapshot of the critical functions, verified on demand."""

    def __init__(self) -> None:
        self._watched = []
        for name, owner, attr in _critical():
            value = _read(owner, attr)
            self._watched.append(_Watched(name, owner, attr, value, getattr(value, "__code__", None),
                                          getattr(value, "__defaults__", None)))
        self._modules = {n: m for n, m in sys.modules.items() if n in HARNESS_MODULES}
        self._threads: set[threading.Thread] = set()

    def before_call(self) -> None:
        self._threads = set(threading.enumerate())

    def verify(self) -> None:
        self.verify_threads()
        self.verify_functions()

    def verify_functions(self) -> None:
        if sys.gettrace() is not None or sys.getprofile() is not None:
            raise IntegrityViolation("a trace or profile function was installed (sys.settrace/setprofile)")
        for w in self._watched:
            value = _read(w.owner, w.attr)
            if value is not w.value:
                raise IntegrityViolation(f"{w.name} was replaced")
            if w.code is not None and (value.__code__ is not w.code or value.__defaults__ is not w.defaults):
                raise IntegrityViolation(f"the code of {w.name} was replaced")
        for name, module in self._modules.items():
            if not isinstance(module, ModuleType) or sys.modules.get(name) is not module:
                raise IntegrityViolation(f"the module {name} was replaced")

    def verify_threads(self) -> None:
        left = [t for t in threading.enumerate() if t not in self._threads and t.is_alive()]
        if left:
            names = ", ".join(sorted(t.name for t in left))[:200]
            raise IntegrityViolation(f"run(...) left {len(left)} thread(s) running ({names}): "
                                     "work must finish inside the call")
