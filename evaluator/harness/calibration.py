"""Holding the solution's reported times to the reporter's own clocks (trusted side).

On a GPU the solution's process reports each call's GPU activity span (CUPTI through torch's
profiler); nothing stops code in that process from reporting less. The reporter brackets every
call on the GPU itself (gpu_bracket.py): its own stream's events give each call a bound the
solution's side can only raise, the GPU time from the call's inputs being in place to its
outputs being handed over. Beyond the call's own span the bound holds a fixed part (the two
contexts taking turns, the wait for the go, the done word), which the reporter measures before
any user code is loaded, on the harness's own null problem run through the very same gated
calls (`NULL_DEFINITION`): the `overhead`. Each call then scores

    max(reported, bound - overhead - allowance),   allowance = max(ALLOWED_MS, ALLOWED_SHARE * reported)

so a report lowered by code in the solution's process, work moved outside the span, or host
work that keeps the GPU waiting (a handle made on every call) is charged back, all but the
allowance. A report beyond the bracket itself (more GPU time than the GPU saw) is a forgery.

On the CPU the score is the reporter's clock itself, from its go until the solution's side is
paused again after the call's done (so that nothing of the solution's can still write its
outputs unclocked), less the least fixed cost of a call measured on the null problem.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from .gpu_bracket import CallBracket

ALLOWED_MS = 0.005  # what a call's report may fall short of the bound: 5 us ...
ALLOWED_SHARE = 0.1  # ... or 10% of the reported time, whichever is more
BRACKET_SLACK_MS = 0.002  # a span may exceed the bracket by the clocks' rounding only

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
class GpuCall:
    """One timed call on a GPU: the span the solution's process reported and the reporter's own
    bracket of it (ms)."""

    reported_ms: float | None
    bracket: CallBracket
    bound_ms: float  # the bracket's bound with this workload's prelude reference

    @property
    def excess_ms(self) -> float:
        return self.bound_ms - (self.reported_ms or 0.0)


@dataclass(frozen=True)
class Calibration:
    """The harness's own fixed costs, measured on the null problem before the import (ms).

    overhead_ms: on a GPU, the median of how far each call's bound exceeded its span; spread_ms:
    how much that varied (between the quartiles). least_ms: on the CPU, the least of the
    reporter's clock of a call beyond what the call itself took inside."""

    overhead_ms: float
    spread_ms: float
    least_ms: float
    calls: int

    @classmethod
    def from_gpu_calls(cls, calls: list[GpuCall]) -> Calibration:
        excess = [c.excess_ms for c in calls]
        return cls(statistics.median(excess), _spread(excess), 0.0, len(calls))

    @classmethod
    def from_cpu_calls(cls, outside_minus_inside: list[float]) -> Calibration:
        extra = [max(e, 0.0) for e in outside_minus_inside]
        return cls(statistics.median(extra), _spread(extra), min(extra), len(extra))


def allowance_ms(reported_ms: float | None) -> float:
    return max(ALLOWED_MS, ALLOWED_SHARE * (reported_ms or 0.0))


def scored_ms(call: GpuCall, calibration: Calibration) -> float:
    """The call's time: its report, or the reporter's bound less the harness's own costs and the
    allowance where the report falls short of that."""
    floor = call.bound_ms - calibration.overhead_ms
    if call.reported_ms is None:  # no GPU activity in the window: the bound is all there is
        return max(floor, 0.0)
    return max(call.reported_ms, floor - allowance_ms(call.reported_ms))


def beyond_bracket(call: GpuCall) -> bool:
    """A reported span longer than the reporter's bracket of the whole call: a forged report."""
    return (call.reported_ms or 0.0) > call.bracket.bracket_ms + BRACKET_SLACK_MS


@dataclass(frozen=True)
class Held:
    """A workload's timed calls held to the reporter's GPU clock: the figures beside its timing
    (`timing.outside` in the result document)."""

    reported_ms: float  # median of the reported spans
    bound_ms: float  # median of the bounds less the harness's overhead
    excess_ms: float  # median of how far the bound (less the overhead) exceeded the report
    allowance_ms: float  # median of the calls' allowances
    charged_ms: float  # median of what was added to the reports
    charged_calls: int  # calls whose report fell short of the bound by more than the allowance
    overhead_ms: float
    spread_ms: float
    prelude_ref_ms: float
    calls: int

    def to_json(self) -> dict[str, Any]:
        return {"clock": "gpu_bracket", **{k: (round(v, 6) if isinstance(v, float) else v)
                                           for k, v in vars(self).items()}}


def hold(calls: list[GpuCall], calibration: Calibration, prelude_ref_ms: float) -> Held:
    scored = [scored_ms(c, calibration) for c in calls]
    reported = [c.reported_ms or 0.0 for c in calls]
    return Held(
        reported_ms=statistics.median(reported),
        bound_ms=statistics.median(c.bound_ms - calibration.overhead_ms for c in calls),
        excess_ms=statistics.median(c.bound_ms - calibration.overhead_ms - r
                                    for c, r in zip(calls, reported, strict=True)),
        allowance_ms=statistics.median(allowance_ms(c.reported_ms) for c in calls),
        charged_ms=statistics.median(s - r for s, r in zip(scored, reported, strict=True)),
        charged_calls=sum(1 for s, r in zip(scored, reported, strict=True) if s > r),
        overhead_ms=calibration.overhead_ms,
        spread_ms=calibration.spread_ms,
        prelude_ref_ms=prelude_ref_ms,
        calls=len(calls),
    )


def _spread(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    quartiles = statistics.quantiles(values, n=4)
    return quartiles[2] - quartiles[0]
