"""Reading a profiler session's records in memory (evaluator/harness/timing.py activity_spans):
the same categories as the exported trace, on torch versions with and without
KinetoEvent.activity_type(); a torch operator's correlation id (another counter) never passes
for a launch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    def __init__(self, events: list[Any]) -> None:
        self.kineto_results = self
        self._events = events

    def events(self) -> list[Any]:
        return self._events


def _records(cls: type, categories: bool) -> list[Any]:
    def make(name: str, device: Any, correlation: int, start: int, duration: int,
             annotation: bool = False, category: str = "") -> Any:
        extra = {"_category": category} if categories else {}
        return cls(name, device, correlation, start, duration, annotation, **extra)

    return [
        make(f"{ANNOTATION}0", CPU, 1, 100_000, 200_000, True, "user_annotation"),
        make("cudaLaunchKernel", CPU, 7, 80_000, 3_000, category="cuda_runtime"),
        make("aten::mul", CPU, 7, 101_000, 50_000, category="cpu_op"),  # op id 7, like the kernel below
        make("cudaLaunchKernel", CPU, 9, 110_000, 3_000, category="cuda_runtime"),
        make("flush_kernel", CUDA, 7, 90_000, 60_000, category="kernel"),  # launched before the window
        make("mul_kernel", CUDA, 9, 150_000, 20_000, category="kernel"),
        make("cuLaunchKernelEx", CPU, 11, 171_000, 2_000, category="cuda_driver"),
        make("triton_kernel", CUDA, 11, 175_000, 5_000, category="kernel"),
        make(f"{ANNOTATION}0", CUDA, 1, 150_000, 30_000, True, "gpu_user_annotation"),
    ]


def test_both_torch_apis_charge_the_call_with_what_it_launched_only() -> None:
    for cls, categories in ((OldEvent, False), (NewEvent, True)):
        spans = activity_spans(Session(_records(cls, categories)), 1)
        assert spans == [(180_000 - 150_000) / 1e6], cls.__name__
