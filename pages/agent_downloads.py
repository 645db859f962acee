"""The agent board's and the agent page's CSV downloads beyond the rows as shown: one line per
upload, hardware and task type (by=task_type) or problem (by=problem), the figures those of
submissions.agent_results (docs/scoring.md, "Agent suites"). Left-out problems have a line too,
with outcome "left out" and empty figures."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from evaluator.scoring.suite import DERIVED, FIGURES
from leaderboard.agent_boards import AgentBoard
from submissions.agent_results import USAGE, HardwareResults, UploadResults
from submissions.models import AgentSubmission

from .downloads import csv_text

BY = ("task_type", "problem")
UPLOAD = ("agent", "version", "model", "user", "agent_submission", "uploaded", "hardware", "status")
PROBLEM = ("problem", "problem_slug", "task_type", "submission", "outcome", "valid", "score", "visible_score",
           "hidden_score", "visible_passed", "visible_total", "hidden_passed", "hidden_total",
           "conditional_correctness", *DERIVED, *USAGE)
SUITE = (*FIGURES, "missing_problems")
COSTS = ("cost_usd", "budget_usd", "tokens", "tokens_input", "tokens_output", "wall_seconds")
Line = tuple[AgentSubmission, HardwareResults]


class BadDownload(ValueError):
    """A `by` the downloads do not have, or one without format=csv; the message says what they take."""


def by_of(query: Mapping[str, str]) -> str | None:
    by = query.get("by") or None
    if by is None:
        return None
    if by not in BY:
        raise BadDownload(f"unknown by={by!r}; use one of: {', '.join(BY)} (with format=csv)")
    if query.get("format") != "csv":
        raise BadDownload(f"by={by} is a CSV download: add format=csv")
    return by


def board_csv(board: AgentBoard, by: str) -> str:
    """The board's uploads in rank order, one line per task type or problem."""
    return csv_text(*_by([(row.upload, row.results) for row in board.rows], by))


def agent_csv(uploads: Sequence[UploadResults], by: str | None) -> str:
    """An agent's uploads, newest first, each hardware it ran on: one line each with the suite's
    figures and the manifest's costs, or one per task type or problem."""
    lines = [(upload.agent, here) for upload in uploads for here in upload.hardware]
    if by is not None:
        return csv_text(*_by(lines, by))
    rows = ([*_upload(agent, here), *_figures(here.suite), "; ".join(here.missing),
             *(getattr(agent, cost) for cost in COSTS)] for agent, here in lines)
    return csv_text((*UPLOAD, *SUITE, *COSTS), rows)


def _by(lines: Iterable[Line], by: str) -> tuple[tuple[str, ...], Iterator[list[Any]]]:
    if by == "task_type":
        return (*UPLOAD, "task_type", *FIGURES), (
            [*_upload(agent, here), task_type, *_figures(figures)]
            for agent, here in lines for task_type, figures in here.task_types.items())
    return (*UPLOAD, *PROBLEM), ([*_upload(agent, here), *_problem(row.to_dict())]
                                 for agent, here in lines for row in here.problems)


def _upload(agent: AgentSubmission, here: HardwareResults) -> list[Any]:
    return [agent.name, agent.version, agent.model, agent.owner.get_username(), agent.pk, agent.created,
            here.hardware, here.status]


def _figures(figures: Any) -> list[Any]:
    return [getattr(figures, name) for name in FIGURES]


def _problem(values: dict[str, Any]) -> list[Any]:
    return [values.get(name) for name in PROBLEM]
