"""A review flag for probing the hidden workloads through their aggregates (docs/security.md): one
owner's scored evaluations of a problem on one hardware whose visible results are the same, verdict
for verdict, while their hidden passed counts differ. Honest work changes the visible results too,
most of the time; a solution that reads hidden shapes back keeps them fixed and varies only what it
does on shapes it has not seen. A flag is a reason to read the sources, not a verdict."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.utils import timezone

from evaluator.harness import status
from leaderboard.models import Workload

from .counting import counting
from .models import Evaluation, WorkloadResult

MIN_PROBES = 3  # evaluations in one group before it is flagged
WINDOW = timedelta(days=30)


def suspected_probes(window: timedelta = WINDOW) -> set[int]:
    """Ids of the evaluations, scored in the window, that belong to a flagged group: one per
    submission and hardware (the platform's own runs again, rescores and confirmations, are no probes)."""
    rows = (WorkloadResult.objects
            .filter(counting("evaluation__"), evaluation__state=Evaluation.SCORED,
                    evaluation__finished_at__gte=timezone.now() - window)
            .values_list("evaluation_id", "evaluation__submission__owner_id",
                         "evaluation__submission__problem_id", "evaluation__hardware_id",
                         "workload_id", "workload__visibility", "status"))
    visible: dict[int, list[tuple[int, str]]] = defaultdict(list)
    hidden_passed: dict[int, int] = defaultdict(int)
    group_of: dict[int, tuple[int, int, int]] = {}
    for evaluation, owner, problem, hardware, workload, visibility, verdict in rows:
        group_of[evaluation] = (owner, problem, hardware)
        if visibility == Workload.VISIBLE:
            visible[evaluation].append((workload, verdict))
        else:
            hidden_passed[evaluation] += verdict == status.PASSED
    groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for evaluation, key in group_of.items():
        groups[(*key, tuple(sorted(visible[evaluation])))].append(evaluation)
    return {evaluation for members in groups.values()
            if len(members) >= MIN_PROBES and len({hidden_passed[e] for e in members}) > 1
            for evaluation in members}
