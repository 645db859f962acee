"""How sure a score is: each workload's SOL score carries the timing noise of the kernel and of the
baseline it is measured against (each timing's relative standard error, `rse`), propagated to
first order through S = (Tb - Tsol) / (Tb + Tk - 2 Tsol); a mean over workloads adds them in
quadrature. Reported as the half-width of a 95% interval ("0.812 +/- 0.004"). The median is
timed, the rse is the mean's: close enough for the interval's purpose, which is to say whether two
scores differ by more than the measurement can tell."""

from __future__ import annotations

import math
from collections.abc import Iterable

Z95 = 1.96


def score_error(kernel_ms: float, kernel_rse: float, baseline_ms: float, baseline_rse: float,
                sol_ms: float) -> float:
    """One standard error of a workload's score, from its two timings' relative standard errors."""
    span = baseline_ms + kernel_ms - 2 * sol_ms
    if span <= 0:
        return 0.0
    by_kernel = (baseline_ms - sol_ms) / span**2 * kernel_rse * kernel_ms
    by_baseline = (kernel_ms - sol_ms) / span**2 * baseline_rse * baseline_ms
    return math.hypot(by_kernel, by_baseline)


def mean_error(errors: Iterable[float], count: int) -> float:
    """One standard error of a mean over `count` workloads whose own errors are `errors` (failed
    workloads count 0 with no error)."""
    return math.sqrt(math.fsum(e * e for e in errors)) / count if count else 0.0


def ci95(error: float) -> float:
    return Z95 * error


def indistinguishable(a: float, a_ci95: float | None, b: float, b_ci95: float | None, noise: float) -> bool:
    """Whether two scores differ by no more than the measurements can tell: by no more than their two
    95% half-widths together, or than the hardware's run-to-run noise (`noise`, a share of the higher
    score). The boards tie ranks by it and confirmation runs agree by it (docs/scoring.md)."""
    apart = abs(a - b)
    return apart <= (a_ci95 or 0.0) + (b_ci95 or 0.0) or apart <= noise * max(a, b)
