"""What anyone (the owner and the admins' public views included) is shown of hidden workloads: one
aggregate per evaluation, the number passed, their total and their mean score; never a hidden
workload's own status, score, time, message or place in the run order.

A per-workload verdict is an oracle: a solution that fails in a chosen way depending on a digit of the
shape it gets reads the hidden shapes back from the verdicts (issue 17). docs/security.md says what
the aggregate still tells and how that is bounded."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.db.models import Prefetch

from evaluator.harness import status
from leaderboard.models import Workload

from .models import Evaluation, WorkloadResult


@dataclass(frozen=True)
class HiddenSummary:
    passed: int
    total: int
    score: float  # the mean over the hidden workloads, failed ones counting 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_hidden(result: WorkloadResult) -> bool:
    return result.workload.visibility != Workload.VISIBLE


def visible_results(results: Iterable[WorkloadResult]) -> list[WorkloadResult]:
    return [result for result in results if not is_hidden(result)]


def visible_row(result: WorkloadResult, timed: bool = True) -> dict[str, Any]:
    """A visible workload's whole row, as the API and the submission page show it; a run that timed
    nothing (`timed` False: test and profile modes) has no score. A hidden workload has none: it is
    shown as part of its aggregate (hidden_summary) only."""
    if is_hidden(result):
        raise ValueError("a hidden workload's result is shown as part of its aggregate only")
    workload = result.workload
    return {"visibility": workload.visibility, "status": result.status,
            "score": result.score if timed else None,
            "uuid": workload.uuid, "axes": workload.axes, "smoke": workload.smoke,
            "message": result.message, "latency_ms": result.latency_ms,
            "reference_latency_ms": result.reference_latency_ms,
            "baseline_latency_ms": result.baseline_latency_ms,
            "baseline_shared": result.shared_timing_id is not None, "sol_ms": result.sol_ms,
            "below_sol": result.below_sol, "roofline": result.raw.get("roofline"),
            "profile": result.raw.get("profile")}


def visible_rows(results: Iterable[WorkloadResult], timed: bool = True) -> list[dict[str, Any]]:
    """The rows of the visible workloads, hidden ones left out whoever asks."""
    return [visible_row(result, timed) for result in visible_results(results)]


def hidden_summary(evaluation: Evaluation) -> HiddenSummary | None:
    """From the evaluation's results (prefetched, with their workloads); None without hidden ones."""
    hidden = [result for result in evaluation.results.all() if is_hidden(result)]
    if not hidden:
        return None
    return HiddenSummary(passed=sum(result.status == status.PASSED for result in hidden), total=len(hidden),
                         score=math.fsum(result.score for result in hidden) / len(hidden))


def stored_progress(visible: int, hidden: int, statuses: list[str | None]) -> dict[str, Any]:
    """What a worker stores of a running evaluation (Evaluation.progress): the verdict of each visible
    workload (they run first), and of the hidden ones only whether any has started. Storing their
    verdicts or their count done would let a visitor who polls the page time and judge each one."""
    return {"visible": visible, "hidden": hidden, "statuses": statuses[:visible],
            "hidden_started": any(verdict is not None for verdict in statuses[visible:])}


def shown_progress(stored: Mapping[str, Any]) -> tuple[list[str | None], int, bool]:
    """(visible verdicts, hidden count, whether hidden ones have started) from a stored progress,
    including one stored before hidden verdicts were left out (every verdict in `statuses`)."""
    statuses = stored.get("statuses")
    if not isinstance(statuses, list):
        return [], 0, False
    visible = int(stored.get("visible") or 0)
    if "hidden" in stored:
        return statuses[:visible], int(stored.get("hidden") or 0), bool(stored.get("hidden_started"))
    rest = statuses[visible:]
    return statuses[:visible], len(rest), any(verdict is not None for verdict in rest)


def verdicts() -> Prefetch:
    """For a list of evaluations: the visible verdicts Evaluation.outcome reads, of the scored ones
    where nothing passed (the only ones it reads them for), prefetched as `results`."""
    nothing_passed = {"evaluation__state": Evaluation.SCORED, "evaluation__aggregates__passed": 0}
    rows = (WorkloadResult.objects.filter(workload__visibility=Workload.VISIBLE, **nothing_passed)
            .select_related("workload").only("evaluation", "status", "workload__visibility"))
    return Prefetch("results", queryset=rows)
