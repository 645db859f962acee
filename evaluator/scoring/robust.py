"""A robust figure from repeated runs. A shared baseline or reference time (docs/scoring.md, "Shared
baselines") is measured in several harness runs; each run's figure is itself the median of many
timed calls. Across the runs:

- a run without a usable time (missing, not finite, not above 0) is rejected;
- the median/MAD rule rejects outliers: with m the median of the usable runs and MAD the median of
  |x - m|, a run is rejected when |x - m| > CUTOFF * max(MAD_SCALE * MAD, MIN_SPREAD * m). MAD_SCALE
  makes the MAD a standard deviation under normal noise; the floor keeps every run within
  CUTOFF * MIN_SPREAD (3.5%) of the median, so that runs agreeing almost exactly (MAD near 0) do
  not reject a close one;
- the figure is the median of the runs kept; its spread their standard deviation relative to it;
  its rse max(spread, the runs' median own rse) / sqrt(kept).

Fewer than MIN_RUNS usable runs give no figure (TooFewRuns): with two, the median cannot tell which
of them is off."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

MIN_RUNS = 3
CUTOFF = 3.5  # a robust z-score above this is an outlier (Iglewicz and Hoaglin)
MAD_SCALE = 1.4826
MIN_SPREAD = 0.01


class TooFewRuns(ValueError):
    """Not enough usable runs for a figure; the message says how many there were."""


@dataclass(frozen=True)
class RobustTime:
    ms: float  # the median of the runs kept
    spread: float  # the kept runs' standard deviation, relative to ms
    rse: float  # relative standard error of ms
    kept: int
    rejected: int  # outliers and runs without a usable time


def usable(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value > 0


def robust_time(runs_ms: Sequence[float | None], run_rses: Sequence[float | None] = (),
                min_runs: int = MIN_RUNS) -> RobustTime:
    """The figure of one time measured once per run; run_rses: each run's own rse, where known."""
    runs = [(ms, rse) for ms, rse in zip_longest(runs_ms, run_rses[:len(runs_ms)]) if usable(ms)]
    if len(runs) < max(min_runs, 1):
        raise TooFewRuns(f"{len(runs)} usable run(s) of {len(runs_ms)}; at least {max(min_runs, 1)} needed")
    values = [float(ms) for ms, _ in runs]
    middle = statistics.median(values)
    mad = statistics.median(abs(x - middle) for x in values)
    scale = max(MAD_SCALE * mad, MIN_SPREAD * middle)
    kept = [(float(ms), rse) for ms, rse in runs if abs(ms - middle) <= CUTOFF * scale]
    times = [ms for ms, _ in kept]
    figure = statistics.median(times)
    spread = statistics.stdev(times) / figure if len(times) > 1 else 0.0
    own = [float(rse) for _, rse in kept if isinstance(rse, int | float) and math.isfinite(rse) and rse >= 0]
    own_rse = statistics.median(own) if own else 0.0
    return RobustTime(ms=figure, spread=spread, rse=max(spread, own_rse) / math.sqrt(len(times)),
                      kept=len(times), rejected=len(runs_ms) - len(times))
