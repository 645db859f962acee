"""Holding the solution's reported times to the reporter's own clock (trusted side).

The solution's process reports each call's GPU activity span; nothing stops code in that process
from reporting less. The reporter clocks every call itself, from the go it sends to the done it
receives, so it sees the whole call plus its own fixed costs: two messages, the harness's window,
the copy of the outputs into the reporter's buffers. Those costs are measured before any user
code is loaded, on the harness's own null problem run through the very same gated calls
(`NULL_DEFINITION`); the copy is measured by the reporter per workload. What the outside clock
saw beyond them and beyond the reported time is time the activity records do not account for:
honest code has a little (its host work before its first kernel starts and after its last one
ends); a report lowered by code in the solution's process, or work moved outside the reported
window, has more. Above `ALLOWED_MS` plus `ALLOWED_SHARE` of the reported time it is
REWARD_HACK; for a solution in one of `HOST_WORK_LANGUAGES` it is either

- host work, charged: the solution's side used at least that much CPU time during the call
  besides waiting for the GPU at the end of the call's window (the kernel's per-process CPU
  clocks, read by the reporter while the side is paused, less the wait the timing code reports;
  the harness's own CPU time per call, measured on the null problem, taken off). Such a call's
  time is the outside clock's less the harness's costs, not the reported one: a library that
  creates a handle on every call pays for it;
- or REWARD_HACK: the time went neither to reported GPU activity nor to work on the CPU, so the
  GPU ran work the report leaves out.

Either way no call is scored below the outside clock less the allowance: the sorting rests on
what the process reports about its wait, but a process that lowers its report and claims less
wait (or keeps the CPU busy) to look like host work is charged the time it hid.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import torch

# Languages whose libraries commonly do host work on every call (cuDNN creates and destroys a
# handle, plans a graph): time beyond the allowance that CPU time covers is charged. Elsewhere
# honest code has no such work, and any time beyond the allowance is REWARD_HACK. Declaring one
# of these gains a forger nothing: hidden time is charged back.
HOST_WORK_LANGUAGES = frozenset({"cudnn"})
ALLOWED_MS = 0.05  # host work of an honest call outside its first to last kernel
ALLOWED_SHARE = 0.1  # of the reported time: what scales with the call (clock changes, ...)
SPREAD_FACTOR = 5.0  # on a host whose own costs vary more, the allowance follows their spread

NULL_DEFINITION: dict[str, Any] = {
    "name": "solarena_null",
    "description": "The harness's own calibration problem: one small elementwise kernel.",
    "axes": {"n": {"type": "var"}},
    "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
    "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
    "reference": "def run(x):\n    return x + 1.0\n",
    "tolerance": {"atol": 1e-6, "rtol": 1e-6},
}
NULL_WORKLOAD: dict[str, Any] = {"uuid": "solarena-calibration", "axes": {"n": 4096},
                                 "inputs": {"x": {"type": "random"}}}
# 20 warm-up calls: the GPU's clocks rise from idle meanwhile
NULL_TIMING: dict[str, Any] = {"warmup": 20, "min_iterations": 40, "max_iterations": 40,
                               "budget_seconds": 10.0}


@dataclass(frozen=True)
class CallClock:
    """One timed call: the reporter's clock of it, the GPU time the solution's process reported,
    and the CPU time the solution's side used meanwhile, less what it says it spent waiting for
    the GPU at the window's end (ms)."""

    outside_ms: float
    reported_ms: float
    cpu_ms: float


@dataclass(frozen=True)
class Calibration:
    """The reporter's fixed cost of one gated call beyond what the call itself reports, in ms:
    the median over the null problem's timed calls, and the least of them; and the CPU time the
    harness's own code in the solution's process uses per call."""

    overhead_ms: float
    least_ms: float
    spread_ms: float  # between the quartiles
    cpu_ms: float
    calls: int

    @classmethod
    def from_calls(cls, calls: list[CallClock]) -> Calibration:
        """calls: the null problem's timed calls."""
        extra = [max(c.outside_ms - c.reported_ms, 0.0) for c in calls]
        quartiles = statistics.quantiles(extra, n=4) if len(extra) > 1 else [0.0, 0.0, 0.0]
        cpu = statistics.median(c.cpu_ms for c in calls) if calls else 0.0
        return cls(statistics.median(extra), min(extra), quartiles[2] - quartiles[0], cpu, len(extra))

    @property
    def allowed_ms(self) -> float:
        return max(ALLOWED_MS, SPREAD_FACTOR * self.spread_ms)


@dataclass(frozen=True)
class Unaccounted:
    """What the outside clock saw of a workload's timed calls that the reported times do not
    account for, beyond the harness's own costs; what is allowed; and the CPU time the solution's
    side used per call beyond the harness's own."""

    outside_ms: float  # median of the reporter's clock of each call
    reported_ms: float  # median of the reported times
    unaccounted_ms: float  # median of (outside - reported) less the harness's costs
    allowed_ms: float
    overhead_ms: float  # the harness's fixed cost per call (Calibration.overhead_ms)
    spread_ms: float  # how much that cost varied (Calibration.spread_ms)
    copy_ms: float  # handing the outputs over
    host_cpu_ms: float  # median CPU time of the solution's side per call, less the harness's own
    charges_host_work: bool = False  # the solution's language does host work per call (HOST_WORK_LANGUAGES)

    @property
    def beyond_allowance(self) -> bool:
        return self.unaccounted_ms > self.allowed_ms

    @property
    def tampered(self) -> bool:
        """Time beyond the allowance that the solution's CPU time does not cover."""
        if not self.charges_host_work:
            return self.beyond_allowance
        return self.beyond_allowance and self.host_cpu_ms < self.unaccounted_ms - self.allowed_ms

    @property
    def charged_ms(self) -> float:
        """Host work per call to add to the reported time (0 unless beyond the allowance)."""
        return self.unaccounted_ms if self.beyond_allowance and not self.tampered else 0.0

    def to_json(self) -> dict[str, float]:
        return {**{k: round(v, 6) for k, v in vars(self).items() if k != "charges_host_work"},
                "charged_ms": round(self.charged_ms, 6)}

    def message(self) -> str:
        return (f"the solution's process reported {self.reported_ms:.4g} ms per call, but the harness's "
                f"own clock saw {self.outside_ms:.4g} ms: {self.unaccounted_ms:.4g} ms per call beyond "
                f"its own costs that neither reported GPU activity nor the {self.host_cpu_ms:.4g} ms of "
                f"CPU time the solution's side used accounts for (at most {self.allowed_ms:.4g} ms "
                "allowed): the timing report was tampered with, or work ran outside the timed window")


def unaccounted(calls: list[CallClock], calibration: Calibration, copy_ms: float,
                charges_host_work: bool = False) -> Unaccounted:
    """calls: each timed call of a workload; copy_ms: what copying its outputs into the
    reporter's buffers costs; charges_host_work: the solution's language is one whose libraries
    do host work per call (HOST_WORK_LANGUAGES)."""
    outside = statistics.median(c.outside_ms for c in calls)
    reported = statistics.median(c.reported_ms for c in calls)
    extra = statistics.median(c.outside_ms - c.reported_ms for c in calls) - calibration.overhead_ms - copy_ms
    host = statistics.median(c.cpu_ms for c in calls) - calibration.cpu_ms
    return Unaccounted(outside, reported, max(extra, 0.0), calibration.allowed_ms + ALLOWED_SHARE * reported,
                       calibration.overhead_ms, calibration.spread_ms, copy_ms, max(host, 0.0),
                       charges_host_work)


def copy_cost_ms(buffers: list[torch.Tensor], device: torch.device, repeats: int = 5) -> float:
    """The least time this process takes to copy tensors like `buffers` on `device` and wait for
    it: what the solution's process spends, on the reporter's clock, handing its outputs over."""
    from time import perf_counter

    if device.type != "cuda":
        return 0.0  # a CPU call's latency is the outside clock itself, copy included
    sources = [torch.empty_like(b) for b in buffers]
    copy, wait = float("inf"), float("inf")
    for _ in range(repeats):
        torch.cuda.synchronize(device)
        started = perf_counter()
        for target, source in zip(buffers, sources, strict=True):
            target.copy_(source)
        torch.cuda.synchronize(device)
        copy = min(copy, (perf_counter() - started) * 1e3)
        started = perf_counter()
        torch.cuda.synchronize(device)
        wait = min(wait, (perf_counter() - started) * 1e3)
    return max(copy - wait, 0.0)  # the wait itself is in the calibration already
