"""Geometry of the agent frontier chart, drawn as inline SVG by templates/pages/_chart_frontier.html:
each upload with a cost at its cost (x, in USD) and suite score (y), the frontier (evaluator.scoring.
frontier) as a staircase through its uploads: the best score reached for at most that much money.
The cost axis is a log scale when the costs, all above zero, span a factor of LOG_SPREAD or more.
Pure: positions are computed here, every text is escaped by the template."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evaluator.scoring.numbers import cut
from pages.charts import Tick

# Inner plot area in SVG user units; the viewBox adds the margins.
WIDTH, HEIGHT = 560, 260
LEFT, TOP, RIGHT, BOTTOM = 48, 16, 24, 40
LOG_SPREAD = 10
PAD = 0.15  # decades of room around the outermost costs on a log axis
LABEL_ROOM = 150
Scale = Callable[[float], float]


@dataclass(frozen=True)
class Upload:
    """What the chart needs of one upload."""

    cost: float
    score: float
    label: str  # agent and version
    title: str  # the tooltip: who, score, cost
    on_frontier: bool


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    upload: Upload
    label: str  # on the frontier only: the upload's label, cut to fit (numbers.cut)
    label_x: float
    anchor: str  # "start", or "end" near the right edge


@dataclass(frozen=True)
class FrontierPlot:
    points: list[Point]
    line: str  # SVG path data of the frontier's staircase
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    log_scale: bool
    width: int = LEFT + WIDTH + RIGHT
    height: int = TOP + HEIGHT + BOTTOM
    left: int = LEFT
    top: int = TOP
    right: int = LEFT + WIDTH
    bottom: int = TOP + HEIGHT

    @property
    def middle(self) -> float:
        return LEFT + WIDTH / 2


def frontier_plot(uploads: Sequence[Upload]) -> FrontierPlot | None:
    """The chart of the uploads (all with a cost); None when there is none."""
    if not uploads:
        return None
    costs = [u.cost for u in uploads]
    log_scale = min(costs) > 0 and max(costs) / min(costs) >= LOG_SPREAD
    x, x_ticks = _log_axis(costs) if log_scale else _linear_axis(max(costs))
    top_score = max(0.1, math.ceil(max(u.score for u in uploads) * 10 - 1e-9) / 10)

    def y(score: float) -> float:
        return round(TOP + HEIGHT * (1 - min(max(score, 0.0), top_score) / top_score), 2)

    points = []
    for upload in uploads:
        px = x(upload.cost)
        label = cut(upload.label)
        near_edge = px > LEFT + WIDTH - LABEL_ROOM
        points.append(Point(px, y(upload.score), upload, label if upload.on_frontier else "",
                            px - 6 if near_edge else px + 6, "end" if near_edge else "start"))
    y_ticks = [Tick(y(top_score * i / 4), f"{top_score * i / 4:g}") for i in range(5)]
    return FrontierPlot(points, _staircase(points), x_ticks, y_ticks, log_scale)


def _staircase(points: Sequence[Point]) -> str:
    """From the cheapest frontier upload rightwards: level until the next one, up to it, and level to
    the edge after the last."""
    steps = sorted((p for p in points if p.upload.on_frontier), key=lambda p: (p.x, -p.y))
    if not steps:
        return ""
    path = [f"M{steps[0].x},{steps[0].y}"]
    path += [f"H{p.x}V{p.y}" for p in steps[1:]]
    path.append(f"H{LEFT + WIDTH}")
    return "".join(path)


def _linear_axis(highest: float) -> tuple[Scale, list[Tick]]:
    """From 0 to a round number at or above the highest cost, five ticks."""
    top = _round_up(highest) if highest > 0 else 1.0

    def x(cost: float) -> float:
        return round(LEFT + WIDTH * cost / top, 2)

    return x, [Tick(x(top * i / 4), _usd(top * i / 4)) for i in range(5)]


def _log_axis(costs: Sequence[float]) -> tuple[Scale, list[Tick]]:
    """Decades around the costs, a tick at each power of ten (every other one past eight; 1, 2 and 5
    times each over three decades or less)."""
    low, high = math.log10(min(costs)) - PAD, math.log10(max(costs)) + PAD
    span = high - low

    def x(cost: float) -> float:
        return round(LEFT + WIDTH * (math.log10(cost) - low) / span, 2)

    decades = range(math.floor(low), math.floor(high) + 1)
    if len(decades) <= 3:  # too few powers of ten to read: 1, 2 and 5 times each
        marks = [m * 10.0 ** d for d in decades for m in (1, 2, 5)]
    else:
        marks = [10.0 ** d for d in decades[::1 if len(decades) <= 8 else 2]]
    return x, [Tick(x(mark), _usd(mark)) for mark in marks if low <= math.log10(mark) <= high]



def _round_up(value: float) -> float:
    """The smallest of 1, 2, 2.5 or 5 times a power of ten at or above the value."""
    power = 10.0 ** math.floor(math.log10(value))
    return next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= value * (1 - 1e-9))


def _usd(value: float) -> str:
    return f"${value:.4g}"
