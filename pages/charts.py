"""Geometry of the pages' charts, drawn as inline SVG by templates/pages/_chart_*.html (no script):
the best score of a board over time, and each workload's fraction of the SOL bound.

Pure functions of plain values; every label is escaped by the template that draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

# Inner plot area of the history chart, in SVG user units; the viewBox adds the margins.
WIDTH, HEIGHT = 640, 200
LEFT, TOP, RIGHT, BOTTOM = 44, 12, 16, 28
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Record:
    """A new best score on a board: when it was scored, by whom."""

    at: datetime
    score: float
    user: str


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    record: Record


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class HistoryChart:
    path: str  # the step line's SVG path data
    markers: list[Marker]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    width: int = WIDTH + LEFT + RIGHT
    height: int = HEIGHT + TOP + BOTTOM
    left: int = LEFT
    top: int = TOP
    plot_width: int = WIDTH
    plot_height: int = HEIGHT

    @property
    def bottom(self) -> int:
        return TOP + HEIGHT

    @property
    def right(self) -> int:
        return LEFT + WIDTH


def records(scored: Sequence[tuple[datetime, float, str]]) -> list[Record]:
    """The strictly improving scores of (time, score, user) rows given in time order."""
    best: list[Record] = []
    for at, score, user in scored:
        if not best or score > best[-1].score:
            best.append(Record(at, score, user))
    return best


def history_chart(best: Sequence[Record], now: datetime) -> HistoryChart | None:
    """A step line through the records (scores on a fixed 0..1 axis), held level until `now`."""
    if not best:
        return None
    start, end = best[0].at, max(now, best[-1].at)
    span = (end - start).total_seconds() or 1.0

    def x(at: datetime) -> float:
        return round(LEFT + WIDTH * (at - start).total_seconds() / span, 2)

    def y(score: float) -> float:
        return round(TOP + HEIGHT * (1.0 - min(max(score, 0.0), 1.0)), 2)

    markers = [Marker(x(r.at), y(r.score), r) for r in best]
    steps = [f"M{markers[0].x},{markers[0].y}"]
    for marker in markers[1:]:
        steps.append(f"H{marker.x}V{marker.y}")
    steps.append(f"H{x(end)}")
    y_ticks = [Tick(y(v), f"{v:g}") for v in Y_TICKS]
    x_ticks = [Tick(x(start), _day(start))]
    if _day(end) != _day(start):
        x_ticks.append(Tick(x(end), _day(end)))
    return HistoryChart("".join(steps), markers, y_ticks, x_ticks)


def _day(at: datetime) -> str:
    return at.strftime("%Y-%m-%d")


# The fraction-of-SOL chart: one horizontal bar per visible workload.
BAR_HEIGHT, BAR_GAP, LABEL_WIDTH, BAR_WIDTH, VALUE_WIDTH = 16, 6, 230, 360, 150


@dataclass(frozen=True)
class Bar:
    label: str
    fraction: float | None  # None: the workload has no time (it failed)
    status: str
    y: float
    length: float

    @property
    def passed(self) -> bool:
        return self.status == "PASSED"

    @property
    def text_y(self) -> float:
        return self.y + BAR_HEIGHT - 4


@dataclass(frozen=True)
class FractionChart:
    bars: list[Bar]
    hidden: int  # hidden workloads, which have no bar
    label_width: int = LABEL_WIDTH
    bar_width: int = BAR_WIDTH
    bar_height: int = BAR_HEIGHT
    width: int = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    ticks: list[Tick] = field(default_factory=list)

    @property
    def height(self) -> int:
        return len(self.bars) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP + 16

    @property
    def axis_y(self) -> int:
        return self.height - 16

    @property
    def bar_end(self) -> int:
        return self.label_width + self.bar_width


def fraction_chart(rows: Sequence[tuple[str, float | None, str]], hidden: int) -> FractionChart | None:
    """(label, fraction of SOL or None, status) per visible workload. A fraction is T_sol / T_k:
    1 reaches the bound; anything over 1 (a time under the bound) is drawn full and flagged by its
    row's status and below-SOL note."""
    if not rows:
        return None
    bars = []
    for i, (label, fraction, status) in enumerate(rows):
        length = BAR_WIDTH * min(max(fraction or 0.0, 0.0), 1.0)
        bars.append(Bar(label, fraction, status, BAR_GAP + i * (BAR_HEIGHT + BAR_GAP), round(length, 2)))
    ticks = [Tick(LABEL_WIDTH + BAR_WIDTH * v, f"{v:g}") for v in (0.0, 0.5, 1.0)]
    return FractionChart(bars, hidden, ticks=ticks)
