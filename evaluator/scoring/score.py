"""SOL bounds, workload scores and problem aggregates (trusted side, pure Python).

Definitions and worked examples: docs/scoring.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from evaluator.harness.status import ALL as ALL_STATUSES
from evaluator.harness.status import (
    COMPILE_ERROR,
    INCORRECT_DTYPE,
    INCORRECT_NUMERICAL,
    INCORRECT_SHAPE,
    INVALID_REFERENCE,
    PASSED,
    REWARD_HACK,
    RUNTIME_ERROR,
    TIMEOUT,
)
from evaluator.scoring.hardware import HardwareSpec, peak_bandwidth, peak_flops

__all__ = [
    "ALL_STATUSES",
    "BELOW_SOL_MARGIN",
    "COMPILE_ERROR",
    "DEFAULT_FAST_P_THRESHOLDS",
    "HIDDEN",
    "INCORRECT_DTYPE",
    "INCORRECT_NUMERICAL",
    "INCORRECT_SHAPE",
    "INVALID_REFERENCE",
    "PASSED",
    "REWARD_HACK",
    "RUNTIME_ERROR",
    "TIMEOUT",
    "VISIBLE",
    "ProblemAggregates",
    "WorkloadOutcome",
    "WorkloadScore",
    "is_below_sol",
    "problem_aggregates",
    "sol_bound_ms",
    "workload_score",
]

VISIBLE = "visible"
HIDDEN = "hidden"

# How far below the SOL bound a time may fall and still count as reaching it: datasheet peaks
# are rounded and clocks drift, so a kernel at the true limit can land a little under the bound.
BELOW_SOL_MARGIN = 0.02

DEFAULT_FAST_P_THRESHOLDS = (0.0, 1.0, 1.5, 2.0)


def sol_bound_ms(
    flops: float,
    nbytes: float,
    hw: HardwareSpec,
    dtype: str,
    calibrated: Mapping[str, float] | None = None,
) -> float:
    """Roofline lower bound on the time of a workload: max(compute time, memory time), in ms."""
    _require_finite_nonnegative("flops", flops)
    _require_finite_nonnegative("bytes", nbytes)
    compute_s = flops / peak_flops(hw, dtype, calibrated)
    memory_s = nbytes / peak_bandwidth(hw, calibrated)
    return max(compute_s, memory_s) * 1e3


@dataclass(frozen=True)
class WorkloadScore:
    score: float
    below_sol: bool
    note: str = ""


def is_below_sol(kernel_ms: float, sol_ms: float) -> bool:
    """True when `kernel_ms` is under the SOL bound by more than `BELOW_SOL_MARGIN`."""
    return kernel_ms < sol_ms * (1.0 - BELOW_SOL_MARGIN)


def workload_score(kernel_ms: float, baseline_ms: float, sol_ms: float) -> WorkloadScore:
    """SOL-ExecBench's S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol)), kept in [0, 1].

    A time below the bound by more than the margin is physically suspect: flagged and scored 0.
    When the baseline does not exceed the bound (T_b <= T_sol) the formula has no scale; the
    baseline is then taken as reaching SOL and S = min(1, T_b / T_k).
    """
    _require_positive("kernel time", kernel_ms)
    _require_positive("baseline time", baseline_ms)
    _require_finite_nonnegative("SOL bound", sol_ms)
    if is_below_sol(kernel_ms, sol_ms):
        return WorkloadScore(0.0, True, (
            f"time {kernel_ms:.4g} ms is {1 - kernel_ms / sol_ms:.1%} below the SOL bound "
            f"{sol_ms:.4g} ms: physically suspect, not rewarded"))
    if baseline_ms <= sol_ms:
        return WorkloadScore(min(1.0, baseline_ms / kernel_ms), False, (
            f"baseline {baseline_ms:.4g} ms does not exceed the SOL bound {sol_ms:.4g} ms: "
            "scored as min(1, T_b / T_k)"))
    if kernel_ms <= sol_ms:
        return WorkloadScore(1.0, False, (
            f"time {kernel_ms:.4g} ms is within {BELOW_SOL_MARGIN:.0%} below the SOL bound "
            f"{sol_ms:.4g} ms: scored as reaching it"))
    score = 1.0 / (1.0 + (kernel_ms - sol_ms) / (baseline_ms - sol_ms))
    return WorkloadScore(score, False)


@dataclass(frozen=True)
class WorkloadOutcome:
    """What the aggregates need from one scored workload."""

    uuid: str
    visibility: str
    status: str
    kernel_ms: float | None = None
    reference_ms: float | None = None
    baseline_ms: float | None = None
    sol_ms: float | None = None
    score: float = 0.0  # 0 for anything but PASSED

    def __post_init__(self) -> None:
        if self.visibility not in (VISIBLE, HIDDEN):
            raise ValueError(f"workload {self.uuid}: visibility must be {VISIBLE!r} or {HIDDEN!r}, "
                             f"got {self.visibility!r}")
        if self.status not in ALL_STATUSES:
            raise ValueError(f"workload {self.uuid}: unknown status {self.status!r}")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"workload {self.uuid}: score {self.score!r} is outside [0, 1]")

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def counted_score(self) -> float:
        return self.score if self.passed else 0.0

    @property
    def below_sol(self) -> bool:
        return (self.passed and self.kernel_ms is not None and self.sol_ms is not None
                and is_below_sol(self.kernel_ms, self.sol_ms))

    @property
    def trusted_speedup(self) -> float | None:
        """reference / kernel time for a passed workload with a believable time, else None."""
        if not self.passed or self.below_sol or not self.kernel_ms or not self.reference_ms:
            return None
        return self.reference_ms / self.kernel_ms


@dataclass(frozen=True)
class ProblemAggregates:
    score: float
    visible_score: float | None
    hidden_score: float | None
    generalization_gap: float | None
    conditional_correctness: float | None
    geomean_speedup: float | None
    fast_p: dict[str, float] = field(default_factory=dict)
    passed: int = 0
    total: int = 0
    visible_passed: int = 0
    visible_total: int = 0
    hidden_passed: int = 0
    hidden_total: int = 0
    below_sol_count: int = 0

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def problem_aggregates(
    outcomes: Sequence[WorkloadOutcome],
    fast_p_thresholds: Sequence[float] = DEFAULT_FAST_P_THRESHOLDS,
) -> ProblemAggregates:
    if not outcomes:
        raise ValueError("a problem's aggregates need at least one workload")
    visible = [o for o in outcomes if o.visibility == VISIBLE]
    hidden = [o for o in outcomes if o.visibility == HIDDEN]
    visible_score = _mean_score(visible)
    hidden_score = _mean_score(hidden)
    gap = visible_score - hidden_score if visible_score is not None and hidden_score is not None else None
    speedups = [s for s in (o.trusted_speedup for o in outcomes) if s is not None]
    return ProblemAggregates(
        score=math.fsum(o.counted_score for o in outcomes) / len(outcomes),
        visible_score=visible_score,
        hidden_score=hidden_score,
        generalization_gap=gap,
        conditional_correctness=_conditional_correctness(visible, hidden),
        geomean_speedup=_geomean(speedups),
        fast_p={str(float(p)): sum(s > p for s in speedups) / len(outcomes) for p in fast_p_thresholds},
        passed=_count_passed(outcomes),
        total=len(outcomes),
        visible_passed=_count_passed(visible),
        visible_total=len(visible),
        hidden_passed=_count_passed(hidden),
        hidden_total=len(hidden),
        below_sol_count=sum(o.below_sol for o in outcomes),
    )


def _mean_score(outcomes: Sequence[WorkloadOutcome]) -> float | None:
    if not outcomes:
        return None
    return math.fsum(o.counted_score for o in outcomes) / len(outcomes)


def _count_passed(outcomes: Sequence[WorkloadOutcome]) -> int:
    return sum(o.passed for o in outcomes)


def _conditional_correctness(
    visible: Sequence[WorkloadOutcome], hidden: Sequence[WorkloadOutcome]
) -> float | None:
    """P(hidden correct | visible correct): the hidden pass rate, given every visible one passed."""
    if not visible or not hidden or _count_passed(visible) < len(visible):
        return None
    return _count_passed(hidden) / len(hidden)


def _geomean(values: Sequence[float]) -> float | None:
    if not values:
        return None
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def _require_positive(label: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ValueError(f"{label} must be a positive finite number of ms, got {value!r}")


def _require_finite_nonnegative(label: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{label} must be a finite number >= 0, got {value!r}")
