"""What the submission page shows of each evaluation, built from prefetched rows (no queries):
per-workload rows (hidden ones redacted by the API's serializer), live progress, the visible vs
hidden summary, the fraction-of-SOL chart and the environment.

Workload messages and the platform's error can quote the source (a compile error, a traceback), so
they follow the source's visibility (submissions.visibility.can_view_source)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.serializers import WorkloadResultSerializer
from evaluator.harness import status
from evaluator.models import Evaluation
from leaderboard import charts
from leaderboard.templatetags.page_format import axes as axes_label

LIVE = (Evaluation.QUEUED, Evaluation.RUNNING)
PRIVATE_ENVIRONMENT = ("host",)  # the worker's host name: the platform's, not the participant's


@dataclass(frozen=True)
class Cell:
    """One workload in the live progress strip."""

    label: str
    state: str  # pending, running, passed, failed
    hidden: bool
    title: str


@dataclass(frozen=True)
class Progress:
    cells: list[Cell]
    done: int

    @property
    def total(self) -> int:
        return len(self.cells)


def prepare(evaluation: Evaluation, details_visible: bool) -> Evaluation:
    """Attach rows, chart, summary, progress and environment to an evaluation for the templates."""
    evaluation.rows = [_row(data, details_visible)
                       for data in WorkloadResultSerializer(evaluation.results.all(), many=True).data]
    visible = [row for row in evaluation.rows if row["visibility"] == "visible"]
    evaluation.chart = charts.fraction_chart(
        [(_label(row), row["sol_fraction"], row["status"]) for row in visible],
        hidden=len(evaluation.rows) - len(visible))
    evaluation.summary = evaluation.aggregates or {}
    evaluation.live_progress = progress(evaluation) if evaluation.state == Evaluation.RUNNING else None
    environment = evaluation.environment or {}
    evaluation.environment_items = sorted((key, value) for key, value in environment.items()
                                          if key not in PRIVATE_ENVIRONMENT)
    evaluation.details_visible = details_visible
    return evaluation


def progress(evaluation: Evaluation) -> Progress | None:
    """The strip of a running evaluation from what its worker last stored (Evaluation.progress)."""
    stored = evaluation.progress or {}
    statuses = stored.get("statuses")
    if not isinstance(statuses, list) or not statuses:
        return None
    visible = int(stored.get("visible") or 0)
    cells = []
    for i, verdict in enumerate(statuses):
        hidden = i >= visible
        label = f"hidden {i - visible + 1}" if hidden else f"visible {i + 1}"
        state = ("pending" if verdict is None else "running" if verdict == "running"
                 else "passed" if verdict == status.PASSED else "failed")
        title = f"{label}: {verdict if verdict not in (None, 'running') else state}"
        cells.append(Cell(label, state, hidden, title))
    return Progress(cells, sum(cell.state in ("passed", "failed") for cell in cells))


def _row(data: dict[str, Any], details_visible: bool) -> dict[str, Any]:
    """A serialized result row plus its fraction of SOL (bound / latency), visible rows only."""
    row = {**data, "sol_fraction": None}
    latency, sol = row.get("latency_ms"), row.get("sol_ms")
    if latency and sol is not None:
        row["sol_fraction"] = sol / latency
    if not details_visible and row.get("message"):
        row["message"], row["message_withheld"] = "", True
    return row


def _label(row: dict[str, Any]) -> str:
    return axes_label(row.get("axes") or {}) + (" (smoke)" if row.get("smoke") else "")


def any_live(evaluations: list[Evaluation]) -> bool:
    return any(e.state in LIVE for e in evaluations)
