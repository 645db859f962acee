"""The Nsight Compute reports of profile runs (docs/api.md, "Profile reports"): which of a worker's
reports are kept (each within SOLARENA_NCU_REPORT_BYTES, an evaluation's together within
SOLARENA_NCU_EVALUATION_BYTES), storing them beside their results, and finding one to download:
the submission's owner's and staff's only, as the run itself is. The bytes are ncu's, or the
solution's where it overwrote the file: they are served as they are and never read here."""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from evaluator import ncu_runs
from evaluator.harness import ncu
from leaderboard.models import Workload
from sandbox.base import describe_bytes

from .models import Evaluation, ProfileReport, WorkloadResult


def keep(profiled: ncu_runs.NcuProfile) -> dict[str, bytes]:
    """The reports to store, by workload uuid, in workload order until the limits are reached.
    Each profile says `report_bytes` of a kept report and `report_left_out` why one was not."""
    each, together = settings.SOLARENA_NCU_REPORT_BYTES, settings.SOLARENA_NCU_EVALUATION_BYTES
    kept: dict[str, bytes] = {}
    for uuid, path in profiled.reports.items():
        profile = profiled.outcome.results[uuid]["profile"]
        try:
            with ncu_runs.open_report(path) as report:
                data = report.read(each + 1)
        except (OSError, ncu.NcuError) as exc:
            profile["report_left_out"] = str(exc)
            continue
        if len(data) > each:
            profile["report_left_out"] = f"larger than {describe_bytes(each)}, the limit of a report"
        elif sum(map(len, kept.values())) + len(data) > together:
            profile["report_left_out"] = f"the evaluation's reports would pass {describe_bytes(together)}"
        else:
            kept[uuid] = data
            profile["report_bytes"] = len(data)
    return kept


def store(evaluation: Evaluation, reports: Mapping[str, bytes]) -> None:
    """Each report beside its visible workload's result (in ingest's transaction, after them)."""
    if not reports:
        return
    results = (WorkloadResult.objects.filter(evaluation=evaluation, workload__uuid__in=list(reports),
                                             workload__visibility=Workload.VISIBLE)
               .select_related("workload"))
    ProfileReport.objects.bulk_create(
        ProfileReport(result=result, data=data, size=len(data))
        for result in results if (data := reports[result.workload.uuid]))


def find(user: AbstractBaseUser | AnonymousUser, submission_id: int, hardware: str,
         workload: str) -> ProfileReport | None:
    """The report of a workload of the submission's evaluation on `hardware`, when `user` may
    download it (the submission's owner, or staff); None otherwise, as for one that is missing."""
    if not user.is_authenticated:
        return None
    reports = ProfileReport.objects.filter(result__evaluation__submission_id=submission_id,
                                           result__evaluation__hardware__slug=hardware,
                                           result__workload__uuid=workload)
    if not user.is_staff:
        reports = reports.filter(result__evaluation__submission__owner=user)
    return reports.order_by("-result__evaluation__created").first()
