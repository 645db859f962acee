"""What the submission page shows of each evaluation, built from prefetched rows (no queries):
visible workloads row by row, hidden ones as one aggregate (evaluator.hidden_results), live
progress, the visible vs hidden summary, the fraction-of-SOL and roofline charts and the environment.

Workload messages and the platform's error can quote the source (a compile error, a traceback), so
they follow the source's visibility (submissions.visibility.can_view_source)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator import modes, review, workers
from evaluator.harness import status
from evaluator.hidden_results import hidden_summary, shown_progress, visible_rows
from evaluator.models import Evaluation
from evaluator.scoring.hardware import timing_note
from pages import charts
from pages.roofline_chart import roofline_chart
from pages.templatetags.page_format import axes as axes_label

LIVE = (Evaluation.QUEUED, Evaluation.RUNNING)
PRIVATE_ENVIRONMENT = ("host",)  # the worker's host name: the platform's, not the participant's


@dataclass(frozen=True)
class Cell:
    """One visible workload in the live progress strip, or all the hidden ones as one."""

    label: str
    state: str  # pending, running, passed, failed
    hidden: bool
    title: str


@dataclass(frozen=True)
class Progress:
    cells: list[Cell]
    done: int  # visible workloads with a verdict
    visible: int


def prepare(evaluation: Evaluation, details_visible: bool) -> Evaluation:
    """Attach rows, charts, summary, progress and environment to an evaluation for the templates."""
    timed = modes.timed(evaluation.submission.mode)
    evaluation.rows = [_row(data, details_visible)
                       for data in visible_rows(evaluation.results.all(), timed)]
    evaluation.hidden = hidden_summary(evaluation)
    evaluation.chart = charts.fraction_chart(
        [(_label(row), row["sol_fraction"], row["status"]) for row in evaluation.rows],
        hidden=evaluation.hidden.total if evaluation.hidden else 0)
    evaluation.roofline_chart = roofline_chart(
        [(_label(row), row["status"], row.get("roofline")) for row in evaluation.rows])
    # A profile run's kernel lists (its submission is private: the owner's, and staff's), by workload
    evaluation.profiled = [(_label(row), row["profile"], row["uuid"]) for row in evaluation.rows
                           if details_visible and row.get("profile")]
    evaluation.summary = evaluation.aggregates or {}
    evaluation.live_progress = progress(evaluation) if evaluation.state == Evaluation.RUNNING else None
    environment = evaluation.environment or {}
    evaluation.environment_items = sorted((key, value) for key, value in environment.items()
                                          if key not in PRIVATE_ENVIRONMENT)
    evaluation.details_visible = details_visible
    evaluation.timing_note = timing_note(evaluation.hardware.slug)
    # the review log (evaluator/review.py): decisions and public reasons, never the reviewer
    log = review.public_log(evaluation)
    evaluation.review_decisions = [d for d in log if d["evaluation"] == evaluation.pk]
    evaluation.rerun_by_review = any(d["rerun"] == evaluation.pk for d in log)
    attach_queue(evaluation)
    return evaluation


def attach_queue(evaluation: Evaluation) -> None:
    """A queued evaluation's place in line and its hardware's workers, for the template (`queue`
    and `availability`; None once it is not queued)."""
    queued = evaluation.state == Evaluation.QUEUED
    evaluation.queue = workers.queue_place(evaluation) if queued else None
    evaluation.availability = (workers.availability([evaluation.hardware])[evaluation.hardware.slug]
                               if queued else None)


def progress(evaluation: Evaluation) -> Progress | None:
    """The strip of a running evaluation from what its worker last stored (Evaluation.progress):
    a cell per visible workload, one for the hidden ones, running until the evaluation ends."""
    visible, hidden, hidden_started = shown_progress(evaluation.progress or {})
    if not visible and not hidden:
        return None
    cells = []
    for i, verdict in enumerate(visible):
        label = f"visible {i + 1}"
        state = ("pending" if verdict is None else "running" if verdict == "running"
                 else "passed" if verdict == status.PASSED else "failed")
        title = f"{label}: {verdict if verdict not in (None, 'running') else state}"
        cells.append(Cell(label, state, False, title))
    if hidden:
        state = "running" if hidden_started else "pending"
        label = f"{hidden} hidden workload{'s' if hidden != 1 else ''}"
        cells.append(Cell(label, state, True, f"{label}: {state} (results as a whole, once scored)"))
    done = sum(cell.state in ("passed", "failed") for cell in cells)
    return Progress(cells, done, len(visible))


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
    """Whether the page polls: while an evaluation is queued or running, but for a confirmation run,
    which the page shows only once it finished."""
    return any(e.state in LIVE for e in evaluations if e.confirms_id is None)
