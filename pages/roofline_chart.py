"""Geometry of one evaluation's roofline chart, drawn as inline SVG by
templates/pages/_chart_roofline.html: each passed visible workload at the FLOP/s it achieved over its
arithmetic intensity (FLOPs per byte moved), both axes log scales, under the hardware's two roofs:
the memory slope (peak bytes/s times intensity) up to the ridge, the compute ceiling after it.

The numbers are the rooflines the evaluation recorded (evaluator/scoring/roofline.py, stored with
each result), the same ones the API shows per row: nothing is recomputed here. A passed workload
with no FLOPs counted (a pure memory operation, or a count that failed) has no place on a FLOP/s
axis; it is listed under the chart with the bandwidth it reached. Callers pass visible workloads
only; a label is the workload's axes, escaped by the template.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.harness import status
from evaluator.scoring.numbers import cut, rate, share, significant
from pages.charts import Tick

# Inner plot area in SVG user units; the viewBox adds the margins (tick labels such as "100 TFLOP/s").
WIDTH, HEIGHT = 560, 260
LEFT, TOP, RIGHT, BOTTOM = 84, 16, 24, 40
PAD = 0.2  # decades of room around the outermost point
MAX_TICKS = 7
LABEL_GAP, CHAR_WIDTH = 12, 6.2  # px between two labels' baselines; a character's rough width
HAIR = 1e-6  # px: less than any position is rounded to (0.01)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str  # the workload's name, cut to fit (numbers.cut)
    title: str  # the full name and its numbers (the tooltip)
    label_x: float
    label_y: float
    anchor: str  # "start", or "end" near the right edge


@dataclass(frozen=True)
class Listed:
    """A passed workload with no place on the axes (no FLOPs counted), and what it reached."""

    label: str
    bound: str
    achieved: str
    share: str  # of the roof over it


@dataclass(frozen=True)
class Plot:
    points: list[Point]
    roof: str  # SVG path data: the memory slope, then the compute ceiling
    ridge_x: float
    ridge_y: float
    ridge_label: str
    memory_label: str
    memory_x: float  # where the memory roof's label starts, turned to lie along the slope
    memory_y: float
    memory_angle: float  # degrees
    compute_label: str
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    width: int = LEFT + WIDTH + RIGHT
    height: int = TOP + HEIGHT + BOTTOM
    left: int = LEFT
    top: int = TOP
    right: int = LEFT + WIDTH
    bottom: int = TOP + HEIGHT

    @property
    def middle(self) -> float:
        return LEFT + WIDTH / 2


@dataclass(frozen=True)
class RooflineChart:
    plot: Plot | None  # None when no passed workload has FLOPs to place
    listed: list[Listed]


@dataclass(frozen=True)
class _Passed:
    """A passed workload's stored roofline, its numbers positive and finite or None."""

    name: str
    bound: str
    intensity: float | None
    flops_per_s: float | None  # achieved
    bytes_per_s: float | None
    share: float | None
    peak_flops: float | None
    peak_bytes: float | None
    ridge: float | None

    @property
    def drawable(self) -> bool:
        return all((self.intensity, self.flops_per_s, self.peak_flops, self.peak_bytes, self.ridge))


def roofline_chart(rows: Sequence[tuple[str, str, Mapping[str, Any] | None]]) -> RooflineChart | None:
    """(label, status, stored roofline or None) per visible workload; None when nothing passed with
    a roofline recorded (failed workloads have no time, results stored before rooflines none)."""
    passed = [_passed(label, line) for label, verdict, line in rows
              if verdict == status.PASSED and isinstance(line, Mapping)]
    drawn = [p for p in passed if p.drawable]
    listed = [_listed(p) for p in passed if not p.drawable and p.share]
    if not drawn and not listed:
        return None
    return RooflineChart(_plot(drawn) if drawn else None, listed)


def _passed(name: str, line: Mapping[str, Any]) -> _Passed:
    def number(key: str) -> float | None:
        value = line.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return float(value) if value > 0 else None

    return _Passed(name, "memory" if line.get("bound") == "memory" else "compute", number("intensity"),
                   number("achieved_flops_per_s"), number("achieved_bytes_per_s"), number("share_of_roof"),
                   number("peak_flops_per_s"), number("peak_bytes_per_s"), number("ridge"))


def _listed(p: _Passed) -> Listed:
    memory = p.bound == "memory"
    achieved = rate(p.bytes_per_s, "B/s") if memory else rate(p.flops_per_s, "FLOP/s")
    return Listed(p.name, p.bound, achieved, share(p.share))


def _plot(drawn: list[_Passed]) -> Plot:
    # One definition's workloads share a compute dtype and the evaluation one set of peaks: one roof.
    first = drawn[0]  # drawable: every number set, the `or`s only for the type checker
    peak_flops, peak_bytes, ridge = first.peak_flops or 1.0, first.peak_bytes or 1.0, first.ridge or 1.0
    spots = [(p.intensity or ridge, p.flops_per_s or peak_flops, p) for p in drawn]
    x_lo, x_hi = _span_of([i for i, _, _ in spots], ridge)
    y_lo, y_hi = _span_of([*(a for _, a, _ in spots), peak_bytes * 10.0 ** x_lo], peak_flops, margin=0)
    y_lo = min(y_lo, math.floor(y_lo + PAD))  # down to a whole decade: the slope may span under two

    def x(value: float) -> float:
        return round(LEFT + WIDTH * (math.log10(value) - x_lo) / (x_hi - x_lo), 2)

    def y(value: float) -> float:
        return round(TOP + HEIGHT * (y_hi - math.log10(value)) / (y_hi - y_lo), 2)

    start = (x(10.0 ** x_lo), y(peak_bytes * 10.0 ** x_lo))
    corner = (x(ridge), y(peak_flops))
    angle = math.degrees(math.atan2(corner[1] - start[1], corner[0] - start[0]))
    return Plot(
        points=_labelled([(x(i), y(a), p) for i, a, p in spots]),
        roof=f"M{start[0]},{start[1]}L{corner[0]},{corner[1]}H{LEFT + WIDTH}",
        ridge_x=corner[0], ridge_y=corner[1], ridge_label=f"ridge {significant(ridge)} FLOP/byte",
        memory_label=f"memory roof {rate(peak_bytes, 'B/s')}", memory_angle=round(angle, 2),
        memory_x=round(start[0] + 0.1 * (corner[0] - start[0]), 2),
        memory_y=round(start[1] + 0.1 * (corner[1] - start[1]), 2),
        compute_label=f"compute roof {rate(peak_flops, 'FLOP/s')}",
        x_ticks=[Tick(x(10.0 ** d), significant(10.0 ** d, 1)) for d in _steps(x_lo, x_hi)],
        y_ticks=[Tick(y(10.0 ** d), rate(10.0 ** d, "FLOP/s", 1)) for d in _steps(y_lo, y_hi)])


def _span_of(values: list[float], anchor: float, margin: int = 1) -> tuple[float, float]:
    """The axis's range in decades (log10): the values and `anchor` (the ridge, or the compute
    roof) with PAD around them, and `margin` decades either side of the anchor (on the intensity
    axis, so that both roofs show)."""
    low = min(math.log10(min(values)), math.log10(anchor) - margin) - PAD
    high = max(math.log10(max(values)), math.log10(anchor) + margin) + PAD
    return low, high


def _steps(low: float, high: float) -> range:
    """The whole decades inside the range, at most MAX_TICKS of them."""
    first, last = math.ceil(low), math.floor(high)
    return range(first, last + 1, max(1, math.ceil((last - first + 1) / MAX_TICKS)))


def _labelled(placed: list[tuple[float, float, _Passed]]) -> list[Point]:
    """Points with their labels beside them, pushed down where they would overprint another."""
    points: list[Point] = []
    for px, py, p in sorted(placed, key=lambda item: item[1]):
        label = cut(p.name)
        anchor = "end" if px > LEFT + 0.7 * WIDTH else "start"
        label_x = px - 7 if anchor == "end" else px + 7
        span = _extent(label_x, label, anchor)
        label_y = py + 4
        # A label pushed to exactly LABEL_GAP below another clashes no more, though the float
        # difference may come out a hair under the gap (23.69 + 12 - 23.69 < 12): compared with
        # the gap less a hair, each push leaves one more label behind for good, so it ends.
        while clash := [q.label_y for q in points if abs(q.label_y - label_y) < LABEL_GAP - HAIR
                        and _overlap(span, _extent(q.label_x, q.label, q.anchor))]:
            label_y = max(clash) + LABEL_GAP
        points.append(Point(px, py, label, _title(p), label_x, round(label_y, 2), anchor))
    return points


def _extent(x: float, label: str, anchor: str) -> tuple[float, float]:
    width = CHAR_WIDTH * len(label)
    return (x - width, x) if anchor == "end" else (x, x + width)


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _title(p: _Passed) -> str:
    return (f"{p.name}: {significant(p.intensity)} FLOP/byte, {rate(p.flops_per_s, 'FLOP/s')} and "
            f"{rate(p.bytes_per_s, 'B/s')}, {share(p.share)} of the {p.bound} roof")
