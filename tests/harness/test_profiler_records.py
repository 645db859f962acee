"""Reading a profiler session's records in memory (evaluator/harness/timing.py activity_spans):
the same categories as the exported trace, on torch versions with and without
KinetoEvent.activity_type(); a torch operator's correlation id (another counter) never passes
for a launch."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from evaluator.harness.timing import ANNOTATION, activity_spans

CPU, CUDA = torch.autograd.DeviceType.CPU, torch.autograd.DeviceType.CUDA


@dataclass
class OldEvent:  # torch 2.11: no activity_type()
    _name: str
    _device: Any
    _correlation: int
    _start: int
    _duration: int
    _annotation: bool = False

    def name(self) -> str:
        return self._name

    def device_type(self) -> Any:
        return self._device

    def correlation_id(self) -> int:
        return self._correlation

    def device_resource_id(self) -> int:  # a host record's thread: one thread runs them all here
        return 1

    def start_ns(self) -> int:
        return self._start

    def duration_ns(self) -> int:
        return self._duration

    def is_user_annotation(self) -> bool:
        return self._annotation


@dataclass
class NewEvent(OldEvent):
    _category: str = ""

    def activity_type(self) -> str:
        return self._category


class Session:
    def __init__(self, events: list[Any], exported: list[dict[str, Any]] | None = None) -> None:
        self.kineto_results = self
        self._events = events
        self._exported = exported

    def events(self) -> list[Any]:
        return self._events

    def export_chrome_trace(self, path: str) -> None:
        assert self._exported is not None, "a long span was read from an exported trace"
        with open(path, "w") as fh:
            json.dump({"traceEvents": self._exported}, fh)


def _records(cls: type, categories: bool) -> list[Any]:
    def make(name: str, device: Any, correlation: int, start: int, duration: int,
             annotation: bool = False, category: str = "") -> Any:
        extra = {"_category": category} if categories else {}
        return cls(name, device, correlation, start, duration, annotation, **extra)

    return [
        make(f"{ANNOTATION}0", CPU, 1, 1_000_000, 2_000_000, True, "user_annotation"),
        make("cudaLaunchKernel", CPU, 7, 800_000, 30_000, category="cuda_runtime"),
        make("aten::mul", CPU, 7, 1_010_000, 500_000, category="cpu_op"),  # op id 7, like the kernel below
        make("cudaLaunchKernel", CPU, 9, 1_100_000, 30_000, category="cuda_runtime"),
        make("flush_kernel", CUDA, 7, 900_000, 600_000, category="kernel"),  # launched before the window
        make("mul_kernel", CUDA, 9, 1_500_000, 200_000, category="kernel"),
        make("cuLaunchKernelEx", CPU, 11, 1_710_000, 20_000, category="cuda_driver"),
        make("triton_kernel", CUDA, 11, 1_750_000, 50_000, category="kernel"),
        make(f"{ANNOTATION}0", CUDA, 1, 1_500_000, 300_000, True, "gpu_user_annotation"),
    ]


def test_both_torch_apis_charge_the_call_with_what_it_launched_only() -> None:
    for cls, categories in ((OldEvent, False), (NewEvent, True)):
        spans = activity_spans(Session(_records(cls, categories)), 1)
        assert spans == [(1_800_000 - 1_500_000) / 1e6], cls.__name__


def test_a_span_too_short_for_the_records_resolution_is_read_from_the_exported_trace() -> None:
    """In memory (torch 2.11) a 1.68 us kernel shows as 2.00 us, in steps of 0.25 us; the exported
    trace has it to the nanosecond."""
    coarse = [NewEvent(f"{ANNOTATION}0", CPU, 1, 1_000_000, 10_000, True, "user_annotation"),
              NewEvent("cudaLaunchKernel", CPU, 5, 1_001_000, 2_000, _category="cuda_runtime"),
              NewEvent("softmax_kernel", CUDA, 5, 1_005_000, 2_000, _category="kernel")]
    exported = [{"name": f"{ANNOTATION}0", "cat": "user_annotation", "ts": 1000.0, "dur": 10.0},
                {"name": "cudaLaunchKernel", "cat": "cuda_runtime", "ts": 1001.0, "dur": 2.0,
                 "args": {"correlation": 5}},
                {"name": "softmax_kernel", "cat": "kernel", "ts": 1005.123, "dur": 1.68,
                 "args": {"correlation": 5}}]
    assert activity_spans(Session(coarse, exported), 1) == [pytest.approx(1.68e-3)]
