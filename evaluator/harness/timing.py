"""Timing one callable: warm-up, then timed calls each on fresh inputs, until a stopping rule.

On a GPU each timed call is preceded by an L2 flush and a whole-device synchronization, and its
time is read from the GPU's own activity records (CUPTI through torch.profiler): the span from
the first to the last kernel, copy or memset on any stream inside the call's window. CUDA events
and the host clock are recorded beside it as cross-checks. On the CPU (Triton interpreter) the
same loop runs with the host clock.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

ANNOTATION = "solarena_timed_call_"
GPU_ACTIVITY = {"kernel", "gpu_memcpy", "gpu_memset"}


@dataclass(frozen=True)
class TimingOptions:
    warmup: int = 5
    min_iterations: int = 20
    max_iterations: int = 200
    target_rse: float = 0.005  # relative standard error of the mean at which to stop
    budget_seconds: float = 5.0
    batch: int = 10  # timed calls per profiler session

    @classmethod
    def for_device(cls, device: torch.device, overrides: dict[str, Any] | None = None) -> TimingOptions:
        base = cls() if device.type == "cuda" else cls(
            warmup=1, min_iterations=3, max_iterations=10, target_rse=0.05, budget_seconds=2.0, batch=1
        )
        return cls(**{**asdict(base), **(overrides or {})})


@dataclass
class Timing:
    latency_ms: float  # median of the primary clock (GPU activity on CUDA, host on CPU)
    clock: str
    iterations: int
    rse: float
    samples_ms: list[float] = field(default_factory=list)
    event_ms: float | None = None
    host_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, float):
                data[key] = round(value, 6) if math.isfinite(value) else None
        data["samples_ms"] = [round(s, 6) for s in self.samples_ms]
        return data


Prepare = Callable[[int], list[Any]]  # iteration -> fresh arguments
Invoke = Callable[[list[Any]], Any]  # arguments -> result
Verify = Callable[[int, Any], None]  # iteration, result -> raises if wrong


def time_callable(
    prepare: Prepare, invoke: Invoke, verify: Verify, device: torch.device, options: TimingOptions
) -> Timing:
    """Time invoke(prepare(i)) for iterations i, verifying every timed result."""
    for i in range(options.warmup):
        verify(i, invoke(prepare(i)))
    if device.type == "cuda":
        return _time_cuda(prepare, invoke, verify, device, options)
    return _time_host(prepare, invoke, verify, options)


def _time_host(prepare: Prepare, invoke: Invoke, verify: Verify, options: TimingOptions) -> Timing:
    samples: list[float] = []
    started = time.perf_counter()
    while _keep_going(samples, started, options):
        args = prepare(len(samples))
        t0 = time.perf_counter()
        result = invoke(args)
        samples.append((time.perf_counter() - t0) * 1e3)
        verify(len(samples) - 1, result)
    return Timing(statistics.median(samples), "host", len(samples), _rse(samples), samples,
                  host_ms=statistics.median(samples))


def _time_cuda(
    prepare: Prepare, invoke: Invoke, verify: Verify, device: torch.device, options: TimingOptions
) -> Timing:
    from torch.profiler import ProfilerActivity, profile, record_function

    flush = _l2_flush_buffer(device)
    gpu: list[float] = []
    events: list[float] = []
    host: list[float] = []
    started = time.perf_counter()
    while _keep_going(gpu, started, options):
        batch_host, batch_events, results = [], [], []
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(options.batch):
                index = len(gpu) + len(batch_host)
                args = prepare(index)
                flush.zero_()
                torch.cuda.synchronize(device)
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                with record_function(f"{ANNOTATION}{index}"):
                    t0 = time.perf_counter()
                    start.record()
                    result = invoke(args)
                    end.record()
                    torch.cuda.synchronize(device)
                    batch_host.append((time.perf_counter() - t0) * 1e3)
                batch_events.append((start, end))
                results.append((index, result))
        spans = _activity_spans(prof, len(batch_host))
        for (index, result), span, host_ms, (start, end) in zip(results, spans, batch_host,
                                                                 batch_events, strict=False):
            verify(index, result)
            # No GPU activity at all (a host-only "kernel") falls back to the host clock.
            gpu.append(span if span is not None else host_ms)
            events.append(start.elapsed_time(end))
            host.append(host_ms)
    return Timing(statistics.median(gpu), "gpu_activity", len(gpu), _rse(gpu), gpu,
                  event_ms=statistics.median(events), host_ms=statistics.median(host))


def _activity_spans(prof: Any, count: int) -> list[float | None]:
    """Per timed call: ms from the first GPU activity start to the last end inside its window."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as fh:
            trace = json.load(fh)
    finally:
        os.unlink(path)
    events = trace.get("traceEvents", [])
    windows: dict[int, tuple[float, float]] = {}
    for e in events:
        name = str(e.get("name", ""))
        if e.get("cat") == "user_annotation" and name.startswith(ANNOTATION):
            windows[int(name[len(ANNOTATION):])] = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
    activity = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
                      for e in events if e.get("cat") in GPU_ACTIVITY)
    spans: list[float | None] = []
    for index in sorted(windows)[-count:]:
        lo, hi = windows[index]
        inside = [(s, t) for s, t in activity if s >= lo and t <= hi]
        spans.append((max(t for _, t in inside) - min(s for s, _ in inside)) / 1e3 if inside else None)
    while len(spans) < count:
        spans.append(None)
    return spans


def _l2_flush_buffer(device: torch.device) -> torch.Tensor:
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20) or (64 << 20)
    return torch.empty(2 * l2, dtype=torch.uint8, device=device)


def _keep_going(samples: list[float], started: float, options: TimingOptions) -> bool:
    n = len(samples)
    if n < options.min_iterations:
        return time.perf_counter() - started < options.budget_seconds * 4 or n == 0
    if n >= options.max_iterations or time.perf_counter() - started > options.budget_seconds:
        return False
    return _rse(samples) > options.target_rse


def _rse(samples: list[float]) -> float:
    if len(samples) < 2:
        return math.inf
    mean = statistics.fmean(samples)
    return statistics.stdev(samples) / math.sqrt(len(samples)) / mean if mean > 0 else math.inf
