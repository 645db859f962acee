"""Timing: warm-up, then batches of timed calls until a stopping rule; each call on fresh inputs.

On a GPU each timed call is preceded by a whole-device synchronization, a reset of persisting L2
lines and an L2 flush, which is still running when the call's first launches reach the GPU; its
time is read from the GPU's own activity records (CUPTI through torch's profiler): the span from the
first to the last kernel, copy or memset on any stream that the call launched (trace_spans).
CUDA events and the host clock are recorded beside it as cross-checks, and the SM clock right
after the call (gpu_clock.py): at the power limit times follow it. On the CPU (Triton
interpreter) the same loop runs with the host clock.

`time_batch` runs where the callable lives (the solution's process for the solution, the
reporter for the reference and baseline); `measure` drives batches and applies the stopping rule
on the reporter's side.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from time import perf_counter  # bound at import: a later patch of time.perf_counter misses it
from typing import Any, Protocol

import torch
from torch.autograd.profiler import profile, record_function

from .gpu_clock import sm_clock_mhz
from .l2 import reset_persisting_l2

ANNOTATION = "solarena_timed_call_"
GPU_ACTIVITY = {"kernel", "gpu_memcpy", "gpu_memset"}
LAUNCHES = {"cuda_runtime", "cuda_driver"}  # host-side calls that put work on the GPU
RECORDED = GPU_ACTIVITY | LAUNCHES | {"user_annotation"}
# torch 2.11 keeps the in-memory records' times as double microseconds since the epoch: steps of
# 0.25 us, up to 0.5 us on a span (the H200 showed 2.00 us for a 1.68 us softmax). Spans under
# this are read from the exported trace instead, where the step is a share of 1% or less.
FINE_SPAN_MS = 0.05


@dataclass(frozen=True)
class TimingOptions:
    warmup: int = 5
    min_iterations: int = 20
    max_iterations: int = 200
    target_rse: float = 0.005  # relative standard error of the mean at which to stop
    budget_seconds: float = 5.0
    batch: int = 10  # timed calls per profiler session (and per round trip to the solution)

    @classmethod
    def for_device(cls, device: torch.device, overrides: dict[str, Any] | None = None) -> TimingOptions:
        base = cls() if device.type == "cuda" else cls(
            warmup=1, min_iterations=3, max_iterations=10, target_rse=0.05, budget_seconds=2.0, batch=1
        )
        return cls(**{**asdict(base), **(overrides or {})})


@dataclass(frozen=True)
class Sample:
    host_ms: float
    gpu_ms: float | None = None  # GPU activity span; None when the call launched no GPU work
    event_ms: float | None = None
    sm_clock_mhz: float | None = None  # read by the timing side itself, never taken from a report
    wait_ms: float | None = None  # of host_ms, waiting for the GPU at the window's end

    @property
    def primary_ms(self) -> float:
        return self.gpu_ms if self.gpu_ms is not None else self.host_ms

    def to_json(self) -> dict[str, float | None]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Sample:
        """A sample reported by the solution's process: plain finite non-negative numbers only."""
        if not isinstance(data, dict):
            raise ValueError("a timing sample must be an object")
        values = {}
        for key in ("host_ms", "gpu_ms", "event_ms", "wait_ms"):
            value = data.get(key)
            if value is None and key != "host_ms":
                values[key] = None
                continue
            if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"timing sample {key} is {value!r}")
            values[key] = float(value)
        return cls(**values)


@dataclass
class Timing:
    latency_ms: float  # median of the primary clock (GPU activity on CUDA, host on CPU)
    clock: str
    iterations: int
    rse: float
    samples_ms: list[float] = field(default_factory=list)
    event_ms: float | None = None
    host_ms: float | None = None
    sm_clock_mhz: float | None = None  # median of the SM clock read after each timed call

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, float):
                data[key] = round(value, 6) if math.isfinite(value) else None
        data["samples_ms"] = [round(s, 6) for s in self.samples_ms]
        return data


Prepare = Callable[[int], list[Any]]  # position in the batch -> fresh arguments
Invoke = Callable[[list[Any]], Any]  # arguments -> result
Keep = Callable[[int, Any], None]  # position, result -> hand the result on (outside the window)
RunBatch = Callable[[int, int, bool], list[Sample]]  # first index, count, timed -> samples


class Gate(Protocol):
    """Hands each call its arguments and lets someone watch it: opened right before the call
    (returning the arguments), closed once its outputs have been handed on."""

    def open(self, position: int) -> list[Any]: ...

    def close(self, position: int) -> None: ...


class LocalGate:
    """For a callable of this process: arguments from prepare(position); on a GPU the persisting
    L2 lines are reset and the L2 flushed right before each call (flush_l2, not waited for)."""

    def __init__(self, prepare: Prepare, device: torch.device) -> None:
        self.prepare, self.device = prepare, device

    def open(self, position: int) -> list[Any]:
        args = self.prepare(position)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)  # the arguments are made
            flush_l2(self.device, wait=False)
        return args

    def close(self, position: int) -> None:
        pass


def time_batch(invoke: Invoke, keep: Keep, count: int, device: torch.device, gate: Gate,
               timed: bool = True, read_clock: bool = False) -> list[Sample]:
    """Run `count` calls, each on the arguments its gate hands it; when timed, one sample each.
    keep() runs after each call's window. read_clock: read the SM clock after each call (the
    reporter's side only: it reads the clock of the solution's calls itself)."""
    if not timed:
        for j in range(count):
            args = gate.open(j)
            result = invoke(args)
            _sync(device)
            keep(j, result)
            gate.close(j)
        return []
    if device.type == "cuda":
        return _time_cuda(invoke, keep, count, device, gate, read_clock)
    samples = []
    for j in range(count):
        args = gate.open(j)
        t0 = perf_counter()
        result = invoke(args)
        samples.append(Sample(host_ms=(perf_counter() - t0) * 1e3))
        keep(j, result)
        gate.close(j)
    return samples


def _time_cuda(invoke: Invoke, keep: Keep, count: int, device: torch.device, gate: Gate,
               read_clock: bool) -> list[Sample]:
    host, waits, events, clocks = [], [], [], []
    collecting = gc.isenabled()
    gc.disable()  # no collector callback or finalizer of the callee's runs in the harness's code,
    try:  # and no collection lands in a timed call (timeit does the same)
        with profiler_session() as prof:
            for j in range(count):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize(device)
                args = gate.open(j)
                with record_function(f"{ANNOTATION}{j}"):
                    t0 = perf_counter()
                    start.record()
                    result = invoke(args)
                    end.record()
                    gc.disable()  # run() may have turned it on
                    t1 = perf_counter()
                    torch.cuda.synchronize(device)
                    t2 = perf_counter()
                    host.append((t2 - t0) * 1e3)
                    waits.append((t2 - t1) * 1e3)
                clocks.append(sm_clock_mhz(device) if read_clock else None)
                events.append((start, end))
                keep(j, result)
                gate.close(j)
    finally:
        if collecting:
            gc.enable()
    spans = activity_spans(prof, count)
    return [Sample(host_ms=h, gpu_ms=span, event_ms=start.elapsed_time(end), sm_clock_mhz=clock, wait_ms=w)
            for span, h, w, (start, end), clock in zip(spans, host, waits, events, clocks, strict=True)]


def measure(run_batch: RunBatch, options: TimingOptions, clock: str) -> Timing:
    """Warm up, then time batches until the stopping rule; the driver side of the loop."""
    if options.warmup:
        run_batch(0, options.warmup, False)
    samples: list[Sample] = []
    started = perf_counter()
    while _keep_going([s.primary_ms for s in samples], started, options):
        count = max(1, min(options.batch, options.max_iterations - len(samples)))
        samples += run_batch(options.warmup + len(samples), count, True)
    primary = [s.primary_ms for s in samples]
    events = [s.event_ms for s in samples if s.event_ms is not None]
    clocks = [s.sm_clock_mhz for s in samples if s.sm_clock_mhz is not None]
    return Timing(statistics.median(primary), clock, len(samples), _rse(primary), primary,
                  event_ms=statistics.median(events) if events else None,
                  host_ms=statistics.median(s.host_ms for s in samples),
                  sm_clock_mhz=statistics.median(clocks) if clocks else None)


def time_callable(prepare: Prepare, invoke: Invoke, verify: Keep, device: torch.device,
                  options: TimingOptions) -> Timing:
    """Time a callable of this process; verify(i, result) every call's result (warm-up included)
    after its batch, with i counting every call."""
    def run_batch(first: int, count: int, timed: bool) -> list[Sample]:
        results: dict[int, Any] = {}
        gate = LocalGate(lambda j: prepare(first + j), device)
        samples = time_batch(invoke, results.__setitem__, count, device, gate, timed, read_clock=True)
        for j in range(count):
            verify(first + j, results.pop(j))
        return samples

    return measure(run_batch, options, "gpu_activity" if device.type == "cuda" else "host")


def profiler_session() -> Any:
    """A profiler session recording host calls and GPU activities. torch.autograd.profiler's own
    class: torch.profiler.profile asks `hasattr(torch, "_inductor")` when it starts, which imports
    the compiler stack (dynamo, sympy; seconds) into every process on its first session."""
    return profile(use_cpu=True, use_device="cuda", use_kineto=True)


class StrayGpuWork(Exception):
    """GPU work launched between the calls' windows by a thread other than the one that runs them."""


def activity_spans(prof: Any, count: int) -> list[float | None]:
    """Per timed call: ms from the first GPU activity start to the last end of what the call
    launched (trace_spans), read from the session's records in memory (exporting and parsing a
    trace file cost about 18 ms a session), or from the exported trace where a span is short
    enough for the in-memory records' resolution to matter (FINE_SPAN_MS). StrayGpuWork where
    another thread launched GPU work outside every window (stray_launches)."""
    events = _in_memory_events(prof)
    stray = stray_launches(events)
    if stray:
        raise StrayGpuWork(f"{stray} GPU operation(s) were launched between calls by a thread other than "
                           "the one that runs them, outside every call's window: work must be done "
                           "inside run(...)")
    spans = trace_spans(events, count)
    if any(span is not None and span < FINE_SPAN_MS for span in spans):
        return exported_spans(prof, count)
    return spans


def exported_spans(prof: Any, count: int) -> list[float | None]:
    """activity_spans from the session's exported trace (times to the nanosecond)."""
    return trace_spans(exported_events(prof), count)


def exported_events(prof: Any) -> list[dict[str, Any]]:
    """The session's records as its exported trace has them (times to the nanosecond)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as fh:
            return json.load(fh)["traceEvents"]


def _in_memory_events(prof: Any) -> list[dict[str, Any]]:
    events = []
    for e in prof.kineto_results.events():
        cat = _category(e)
        if cat is None:
            continue
        correlation = e.correlation_id() if cat != "user_annotation" else None
        events.append({"name": e.name(), "cat": cat, "ts": e.start_ns() / 1e3, "dur": e.duration_ns() / 1e3,
                       "tid": e.device_resource_id(), "args": {"correlation": correlation or None}})
    return events


_API_CALL = re.compile(r"cu(da)?[A-Z]")  # cudaLaunchKernel (runtime), cuLaunchKernelEx (driver)


def _category(event: Any) -> str | None:
    """The record's category as the exported trace names it, where it matters here. Older torch
    (2.11) has no activity_type(): there a GPU record that is no annotation is an activity, and a
    host record named like a CUDA runtime or driver call is a launch (torch's own operators, whose
    correlation ids come from another counter, are named namespace::op)."""
    if hasattr(event, "activity_type"):
        cat = event.activity_type()
        return cat if cat in RECORDED else None
    if event.is_user_annotation():
        return "user_annotation" if event.device_type() == torch.autograd.DeviceType.CPU else None
    if event.device_type() == torch.autograd.DeviceType.CUDA:
        return "kernel"
    return "cuda_runtime" if _API_CALL.match(event.name()) else None


def trace_spans(events: list[dict[str, Any]], count: int) -> list[float | None]:
    """Per timed call: ms from the first start to the last end of its GPU activities
    (call_activities); None where it launched none."""
    per_call = call_activities(events)
    spans: list[float | None] = []
    for index in range(count):
        inside = per_call.get(index)
        spans.append((max(a.end for a in inside) - min(a.start for a in inside)) / 1e3 if inside else None)
    return spans


@dataclass(frozen=True)
class Activity:
    start: float  # microseconds, the trace's clock
    end: float
    launched_at: float | None  # when its runtime or driver call started; None where none is on record


def call_activities(events: list[dict[str, Any]]) -> dict[int, list[Activity]]:
    """A call's GPU activities are those launched inside its window: the kernel, copy or memset
    whose runtime or driver call (matched by correlation id) started there, as SOL-ExecBench
    counts them. Whatever the harness launched before the window (the L2 flush, destination
    buffers) is left out even where it still runs on the GPU once the window is open. An activity
    whose launch is not on record (no correlation id, or none that matches) counts for the window
    it ran inside, so nothing escapes for want of a launch record."""
    windows: dict[int, tuple[float, float]] = {}
    for e in events:
        name = str(e.get("name", ""))
        if e.get("cat") == "user_annotation" and name.startswith(ANNOTATION):
            windows[int(name[len(ANNOTATION):])] = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
    launched: dict[int, tuple[int | None, float]] = {}  # correlation id -> (its window, if any; when)
    for e in events:
        correlation = (e.get("args") or {}).get("correlation")
        if e.get("cat") in LAUNCHES and correlation is not None:
            ts = float(e["ts"])
            launched[correlation] = (next((i for i, (lo, hi) in windows.items() if lo <= ts <= hi), None), ts)
    per_call: dict[int, list[Activity]] = {}
    for e in events:
        if e.get("cat") not in GPU_ACTIVITY:
            continue
        start = float(e["ts"])
        end = start + float(e.get("dur", 0))
        correlation = (e.get("args") or {}).get("correlation")
        if correlation in launched:
            index, launched_at = launched[correlation]
        else:  # no launch on record: whatever ran inside a window is that call's
            index = next((i for i, (lo, hi) in windows.items() if lo <= start and end <= hi), None)
            launched_at = None
        if index is not None:
            per_call.setdefault(index, []).append(Activity(start, end, launched_at))
    return per_call


def stray_launches(events: list[dict[str, Any]]) -> int:
    """GPU activities launched outside every window by a thread other than the one whose windows
    they are (the gating thread's own launches there are the harness's: inputs, flushes, the
    copy of the outputs). Work a helper thread launches after a window closes would run before
    the outputs are copied and checked, in no call's span."""
    annotations = [e for e in events
                   if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith(ANNOTATION)]
    windows = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in annotations]
    callers = {e.get("tid") for e in annotations}
    outside: set[Any] = set()
    for e in events:
        correlation = (e.get("args") or {}).get("correlation")
        if (e.get("cat") in LAUNCHES and correlation is not None and e.get("tid") not in callers
                and not any(lo <= float(e["ts"]) <= hi for lo, hi in windows)):
            outside.add(correlation)
    return sum(1 for e in events
               if e.get("cat") in GPU_ACTIVITY and (e.get("args") or {}).get("correlation") in outside)


_flush_buffers: dict[int, torch.Tensor] = {}


def flush_l2(device: torch.device, wait: bool = True, reset: bool = True) -> None:
    """Reset persisting L2 lines, then write twice the L2's size, so no line of what came before
    is still cached. wait: synchronize the device after; without, the flush is still running
    when the timed call's first launches reach the GPU, which then queue behind it instead of
    each waiting for the host (SOL-ExecBench times its calls the same way). reset: also reset
    persisting lines (a driver call: skipped where the caller has just done it)."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _flush_buffers:
        l2 = getattr(torch.cuda.get_device_properties(index), "L2_cache_size", 64 << 20) or (64 << 20)
        _flush_buffers[index] = torch.empty(2 * l2, dtype=torch.uint8, device=device)
    if reset:
        reset_persisting_l2()
    _flush_buffers[index].zero_()
    if wait:
        torch.cuda.synchronize(device)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _keep_going(samples: list[float], started: float, options: TimingOptions) -> bool:
    n = len(samples)
    if n < options.min_iterations:
        return perf_counter() - started < options.budget_seconds * 4 or n == 0
    if n >= options.max_iterations or perf_counter() - started > options.budget_seconds:
        return False
    return _rse(samples) > options.target_rse


def _rse(samples: list[float]) -> float:
    if len(samples) < 2:
        return math.inf
    mean = statistics.fmean(samples)
    return statistics.stdev(samples) / math.sqrt(len(samples)) / mean if mean > 0 else math.inf
