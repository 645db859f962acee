"""Geometry of the compare page's chart (templates/submissions/_compare_chart.html): b's time over
a's per visible workload both ran, one horizontal bar each on a log2 scale centred on 1, so twice
as fast and twice as slow are bars of one length, left (b faster) or right (b slower). Pure
arithmetic on submissions.compare's pairs; the template writes and escapes every label."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from pages.charts import Tick

from .compare import WorkloadPair

# SVG user units: the workload labels, each half of the plot, the value after it.
LABEL_WIDTH, HALF, VALUE_WIDTH, BAR_HEIGHT, BAR_GAP, AXIS = 200, 180, 120, 14, 6, 16
MAX_OCTAVES = 6  # beyond 64x either way a bar is drawn at full length; its value says how far


@dataclass(frozen=True)
class RatioBar:
    pair: WorkloadPair
    y: float
    x: float  # where the bar starts: left of the centre when b is faster
    length: float  # 0 without a ratio (a side did not pass): no bar, the statuses instead

    @property
    def faster(self) -> bool:
        return self.pair.latency_ratio is not None and self.pair.latency_ratio < 1

    @property
    def text_y(self) -> float:
        return self.y + BAR_HEIGHT - 3


@dataclass(frozen=True)
class RatioChart:
    bars: list[RatioBar]
    ticks: list[Tick] = field(default_factory=list)
    label_width: int = LABEL_WIDTH
    bar_height: int = BAR_HEIGHT
    centre: int = LABEL_WIDTH + HALF
    value_x: int = LABEL_WIDTH + 2 * HALF + 6
    width: int = LABEL_WIDTH + 2 * HALF + VALUE_WIDTH

    @property
    def axis_y(self) -> int:
        return len(self.bars) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP

    @property
    def height(self) -> int:
        return self.axis_y + AXIS


def ratio_chart(pairs: Sequence[WorkloadPair]) -> RatioChart | None:
    """None without a workload to draw."""
    if not pairs:
        return None
    logs = [abs(math.log2(p.latency_ratio)) for p in pairs if p.latency_ratio]
    octaves = min(max(math.ceil(max(logs, default=0.0)), 1), MAX_OCTAVES)
    scale = HALF / octaves
    centre = LABEL_WIDTH + HALF
    bars = []
    for i, pair in enumerate(pairs):
        y = BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
        if not pair.latency_ratio:
            bars.append(RatioBar(pair, y, centre, 0.0))
            continue
        reach = max(min(math.log2(pair.latency_ratio), octaves), -octaves) * scale
        bars.append(RatioBar(pair, y, round(centre + min(reach, 0.0), 2), round(abs(reach), 2)))
    steps = sorted({sign * k for k in range(0, octaves + 1, 1 if octaves <= 3 else 2) for sign in (-1, 1)})
    return RatioChart(bars, [Tick(round(centre + k * scale, 2), _times(k)) for k in steps])


def _times(octave: int) -> str:
    return f"{2.0 ** octave:g}×" if octave >= -3 else f"1/{2 ** -octave}×"
