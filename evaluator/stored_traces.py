"""A scored evaluation's stored results as SOL-ExecBench traces (evaluator/traces.py makes each
record). Hidden workloads are left out: a trace names its workload's uuid, axes and inputs, and a
passed one its times, any of which could tell a hidden shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator import traces
from evaluator.harness import status
from evaluator.models import Evaluation
from leaderboard.models import Workload

MARKED_HACK = "the evaluation was marked a reward hack, so its passes do not count"


@dataclass(frozen=True)
class StoredTraces:
    records: list[dict[str, Any]]
    hidden_left_out: int


class NotScored(Exception):
    """An evaluation without results to export; the message says why, for the user."""


def evaluation_traces(evaluation: Evaluation) -> StoredTraces:
    if evaluation.state != Evaluation.SCORED:
        why = f": {evaluation.error}" if evaluation.error else ""
        raise NotScored(f"evaluation #{evaluation.pk} is {evaluation.state}{why}; "
                        "only a scored evaluation has results to export as traces")
    submission = evaluation.submission
    environment = traces.trace_environment(evaluation.environment or {}, evaluation.hardware.name)
    solution = traces.solution_name(submission.sources, submission.entry, f"submission-{submission.pk}")
    timestamp = traces.iso_timestamp(evaluation.finished_at or evaluation.created)
    records, hidden = [], 0
    for result in evaluation.results.select_related("workload").order_by("workload__position"):
        workload = result.workload
        if workload.visibility == Workload.HIDDEN:
            hidden += 1
            continue
        row = {**result.raw, "status": result.status, "message": result.message,
               "latency_ms": result.latency_ms, "reference_latency_ms": result.reference_latency_ms}
        if evaluation.reward_hack and result.status == status.PASSED:
            row = {"status": status.REWARD_HACK, "message": MARKED_HACK}
        records.append(traces.trace_record(
            definition=submission.problem.name, solution=solution, result=row, environment=environment,
            workload={"uuid": workload.uuid, "axes": workload.axes, "inputs": workload.inputs,
                      "tolerance": workload.tolerance},
            timestamp=timestamp))
    return StoredTraces(records, hidden)
