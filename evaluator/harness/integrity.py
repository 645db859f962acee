"""Integrity checks in the solution's process: the functions, classes and channel that timing and
checking rely on must be the ones the harness started with, no tracer may watch the harness, no
torch mode may sit in the harness's own operations, and no thread the harness did not start may
run while a call is on the clock. The snapshot is taken once, before any user code runs: the
identity (and code) of every function and class member it watches, and the values too, of the
harness modules' lists, dicts and sets and of the executor's own attributes (the guard's own
reference among them), which only the harness changes, and says so (`settle`).

This raises the bar, it is not a wall: code in a process can in principle rewrite that process,
the guard included. No score depends on it: results come only from the reporter process, which
checks every output itself, clocks every call from outside (on a GPU, on the GPU itself) and
holds the reported times to that clock, and pauses this process whenever it is not on the clock
(see docs/security.md).
"""

from __future__ import annotations

import builtins
import copy
import json
import json.encoder
import socket
import sys
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

from .channel import Channel

HARNESS_MODULES = ("evaluator.harness.executor", "evaluator.harness.timing", "evaluator.harness.inputs",
                   "evaluator.harness.integrity", "evaluator.harness.l2", "evaluator.harness.checks",
                   "evaluator.harness.fallback", "evaluator.harness.modules", "evaluator.harness.status",
                   "evaluator.harness.gpu_clock", "evaluator.harness.profiling", "evaluator.harness.ncu",
                   "evaluator.harness.channel", "evaluator.harness.buffers", "evaluator.harness.stream_ops",
                   "evaluator.harness.seccomp")
BUILTINS = ("type", "isinstance", "len", "min", "max", "sorted", "float", "int", "range", "zip",
            "getattr", "id", "print", "str", "dict", "list")


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
    contents: Any = None  # a copy of a list, dict or set: its values are watched too


def _contents(value: Any) -> Any:
    if type(value) in (list, dict, set, tuple, frozenset):
        try:
            return copy.copy(value)
        except Exception:
            return None
    return None


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
    items += [(f"torch.{n}", torch, n) for n in ("empty", "full", "Generator")]
    profiler = torch.autograd.profiler
    items += [(f"torch.autograd.profiler.{n}", profiler, n) for n in ("profile", "record_function")]
    items += _class_members("torch.autograd.profiler.profile", profiler.profile)
    items += [(f"threading.{n}", threading, n) for n in ("enumerate", "active_count")]
    items += [(f"builtins.{n}", builtins, n) for n in BUILTINS]
    items += [(f"json.{n}", json, n) for n in ("dumps", "loads", "load")]
    items += [(f"json.encoder.{n}", json.encoder, n)
              for n in ("c_make_encoder", "encode_basestring", "encode_basestring_ascii", "JSONEncoder")]
    for module_name in HARNESS_MODULES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        items.append((f"sys.modules[{module_name!r}]", sys.modules, module_name))
        for attr, value in vars(module).items():
            if attr.startswith("__"):
                continue
            items.append((f"{module_name}.{attr}", module, attr))  # every global it relies on
            if isinstance(value, type) and value.__module__ == module_name:
                items += _class_members(f"{module_name}.{attr}", value)  # and its own classes
    for cls in (Channel, json.JSONEncoder, socket.socket):
        items += _class_members(f"{cls.__module__}.{cls.__qualname__}", cls)
    return items


def _class_members(name: str, cls: type) -> list[tuple[str, Any, str]]:
    return [(f"{name}.{attr}", cls, attr) for attr in vars(cls) if not attr.startswith("__")
            or attr in ("__init__", "__call__", "__eq__", "__enter__", "__exit__")]


def _read(owner: Any, attr: str) -> Any:
    if isinstance(owner, dict):
        return owner.get(attr)
    return owner.__dict__.get(attr, getattr(owner, attr, None))


class Guard:
    """A snapshot of the critical functions, of the executor's channel and of the harness's own
    threads, verified on demand."""

    def __init__(self, executor: Any, holders: tuple[Any, ...] = ()) -> None:
        """holders: objects given an attribute `guard` naming this guard, besides the executor
        (before the snapshot, which then watches them too)."""
        for holder in holders:
            holder.guard = self
        self._executor = executor
        self._channel = executor.channel
        self._channel_state = dict(vars(executor.channel))
        self._socket = executor.channel.sock
        self._watched = []
        for name, owner, attr in _critical():
            value = _read(owner, attr)
            self._watched.append(_Watched(name, owner, attr, value, getattr(value, "__code__", None),
                                          getattr(value, "__defaults__", None), _contents(value)))
        self._modules = {n: m for n, m in sys.modules.items() if n in HARNESS_MODULES}
        self._threads = frozenset(threading.enumerate())
        executor.guard = self
        self._attributes = dict(vars(executor))

    def settle(self, executor: Any, *names: str) -> None:
        """The harness gave the executor's attributes `names` new values (a solution loaded, a
        workload's buffers): those are the values from now on. Only harness code calls this,
        right after its own change."""
        now = vars(executor)
        for name in names:
            if name in now:
                self._attributes[name] = now[name]

    def verify(self) -> None:
        self.verify_during_call()
        self.verify_functions()

    def verify_during_call(self) -> None:
        """What must hold while a call is on the clock: no thread but the harness's, no mode."""
        left = [t for t in threading.enumerate() if t not in self._threads and t.is_alive()]
        if left:
            names = ", ".join(sorted(t.name for t in left))[:200]
            raise IntegrityViolation(f"{len(left)} thread(s) the harness did not start ({names}) were "
                                     "running during a call: work must be done inside run(...)")
        if torch._C._len_torch_function_stack() or _dispatch_modes():
            raise IntegrityViolation("a torch function or dispatch mode was left active: it would run "
                                     "inside the harness's own operations")

    def verify_functions(self) -> None:
        if sys.gettrace() is not None or sys.getprofile() is not None:
            raise IntegrityViolation("a trace or profile function was installed (sys.settrace/setprofile)")
        for w in self._watched:
            value = _read(w.owner, w.attr)
            if value is not w.value:
                raise IntegrityViolation(f"{w.name} was replaced")
            if w.code is not None and (value.__code__ is not w.code or value.__defaults__ is not w.defaults):
                raise IntegrityViolation(f"the code of {w.name} was replaced")
            if w.contents is not None and not _same_contents(value, w.contents):
                raise IntegrityViolation(f"the contents of {w.name} were changed")
        for name, module in self._modules.items():
            if not isinstance(module, ModuleType) or sys.modules.get(name) is not module:
                raise IntegrityViolation(f"the module {name} was replaced")
        executor = self._executor
        if getattr(executor, "guard", None) is not self:
            raise IntegrityViolation("the harness's integrity guard was replaced")
        if executor.channel is not self._channel or type(self._channel) is not Channel:
            raise IntegrityViolation("the harness's channel was replaced")
        if self._channel.sock is not self._socket or type(self._socket) is not socket.socket:
            raise IntegrityViolation("the harness's channel was changed")
        now = vars(executor)
        shadowing = set(now) - set(self._attributes)
        if shadowing:
            raise IntegrityViolation("the harness's executor was tampered with: it was given "
                                     f"attributes of its own ({', '.join(sorted(shadowing))})")
        changed = sorted(k for k, v in self._attributes.items() if now.get(k) is not v and k != "ticket")
        if changed:
            raise IntegrityViolation("the harness's executor was tampered with: the value of "
                                     f"{', '.join(changed)} was replaced")
        if vars(self._channel) != self._channel_state:
            raise IntegrityViolation("the harness's channel was changed")
        for part in (executor, executor.tripwires):
            own = getattr(part, "__dict__", {})
            shadowed = [k for k in own if callable(getattr(type(part), k, None))]
            if shadowed:
                raise IntegrityViolation(f"a method of the harness's {type(part).__name__} was replaced "
                                         f"on the object itself ({', '.join(sorted(shadowed))})")


def _same_contents(value: Any, snapshot: Any) -> bool:
    if type(value) is not type(snapshot) or len(value) != len(snapshot):
        return False
    if isinstance(value, dict):
        return value.keys() == snapshot.keys() and all(value[k] is snapshot[k] for k in value)
    if isinstance(value, (set, frozenset)):
        return value == snapshot
    return all(a is b for a, b in zip(value, snapshot, strict=True))


def _dispatch_modes() -> int:
    from torch.utils import _python_dispatch

    return int(_python_dispatch._len_torch_dispatch_stack())
