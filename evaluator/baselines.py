"""Shared baselines (docs/scoring.md, "Shared baselines"): the baseline and reference times of a
problem version on a hardware are measured once, in several harness runs, by a calibration
(BaselineCalibration, one per problem version, hardware, harness version and hardware calibration),
and every evaluation of that key is scored against them instead of timing them itself.

An evaluation whose key has no finished calibration times them in its own run, as before, and
requests one: requesting is a conditional write, so however many evaluations miss it at once, one
message is sent. A message sent and not finished (lost, or its worker gone) is sent again after
RESEND_SECONDS, a failed calibration asked again after RETRY_SECONDS; `manage.py calibrate_baselines`
sends either at once."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluator.harness import HARNESS_VERSION
from evaluator.scoring.robust import TooFewRuns
from evaluator.scoring.shared import SharedTimes, workload_figures
from leaderboard.models import Hardware, Problem

from . import modes
from .models import BaselineCalibration, Evaluation, SharedTiming

log = logging.getLogger(__name__)
TASK = "evaluator.tasks.calibrate"
DEFAULT_RUNS = 5
RESEND_SECONDS = 3600
RETRY_SECONDS = 3600


def hardware_calibration(hardware: Hardware) -> str:
    """Which measured peaks the hardware has: a digest of Hardware.calibrated ("" for none). There is
    no calibration version; loading new peaks (manage.py load_calibration) changes the digest."""
    if not hardware.calibrated:
        return ""
    text = json.dumps(hardware.calibrated, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def key(problem: Problem, hardware: Hardware) -> dict[str, Any]:
    return {"problem": problem, "hardware": hardware, "harness_version": HARNESS_VERSION,
            "hardware_calibration": hardware_calibration(hardware)}


def shares(evaluation: Evaluation) -> bool:
    """Whether an evaluation is scored against shared times: a timed run that is not a confirmation
    run (those time the reference and the baseline again, on purpose: evaluator/confirmations.py)."""
    return modes.timed(evaluation.submission.mode) and evaluation.confirms_id is None


def lookup(problem: Problem, hardware: Hardware, uuids: Sequence[str]) -> dict[str, SharedTimes] | None:
    """The shared times of every one of the workloads, or None unless a finished calibration of the
    key has them all."""
    calibration = BaselineCalibration.objects.filter(state=BaselineCalibration.DONE,
                                                     **key(problem, hardware)).first()
    if calibration is None:
        return None
    rows = {t.workload.uuid: t for t in calibration.timings.select_related("workload")}
    if not set(uuids) <= set(rows):
        return None
    return {uuid: _times(rows[uuid], calibration.runs) for uuid in uuids}


def _times(row: SharedTiming, runs: int) -> SharedTimes:
    return SharedTimes(id=row.pk, reference_ms=row.reference_ms, reference_rse=row.reference_rse,
                       baseline_ms=row.baseline_ms, baseline_rse=row.baseline_rse,
                       baseline_is_reference=row.baseline_is_reference, baseline_error=row.baseline_error,
                       runs=runs, measured_at=row.measured_at.isoformat())


def request(problem: Problem, hardware: Hardware, runs: int = DEFAULT_RUNS, now: bool = False) -> bool:
    """Ask for the key's calibration unless it is finished, queued or running; `now` (the command)
    also sends again one that failed or waits, whenever that was. True when a message was sent."""
    calibration, _ = BaselineCalibration.objects.get_or_create(**key(problem, hardware),
                                                               defaults={"runs": runs})
    moment = timezone.now()
    due = Q(state=BaselineCalibration.QUEUED, sent_at__isnull=True)
    if now:
        due |= Q(state__in=[BaselineCalibration.QUEUED, BaselineCalibration.FAILED])
    else:
        due |= (Q(state__in=[BaselineCalibration.QUEUED, BaselineCalibration.RUNNING],
                  sent_at__lt=moment - timedelta(seconds=RESEND_SECONDS))
                | Q(state=BaselineCalibration.FAILED,
                    finished_at__lt=moment - timedelta(seconds=RETRY_SECONDS)))
    fields: dict[str, Any] = {"state": BaselineCalibration.QUEUED, "sent_at": moment, "worker": ""}
    if now:
        fields["runs"] = runs
    if BaselineCalibration.objects.filter(due, pk=calibration.pk).update(**fields) != 1:
        return False
    transaction.on_commit(lambda: _send(calibration.pk, hardware.queue), robust=True)
    return True


def _send(calibration_id: int, queue: str) -> None:
    from .tasks import calibrate  # the task module imports this one

    # Ahead of waiting ranked runs (where the broker has priorities): those will use what it measures.
    calibrate.apply_async(args=[calibration_id], queue=queue, priority=modes.priority(modes.TEST))


def claim(calibration_id: int, worker: str) -> BaselineCalibration | None:
    if BaselineCalibration.objects.filter(pk=calibration_id, state=BaselineCalibration.QUEUED).update(
            state=BaselineCalibration.RUNNING, worker=worker, started_at=timezone.now()) != 1:
        return None
    return BaselineCalibration.objects.select_related("problem", "hardware").get(pk=calibration_id)


def store(calibration_id: int, worker: str, runs: Sequence[Mapping[str, Mapping[str, Any]]],
          uuids: Sequence[str]) -> bool:
    """Store every workload's figures from the runs' raw results (one mapping by uuid per run), or
    fail the calibration naming the workloads without a reference time. False when the worker no
    longer holds it."""
    figures, missing = {}, []
    for uuid in uuids:
        try:
            figures[uuid] = workload_figures([run.get(uuid, {}) for run in runs])
        except TooFewRuns as exc:
            missing.append(f"{uuid}: {exc}")
    if missing:
        return fail(calibration_id, worker, "no shared times: " + "; ".join(missing))
    with transaction.atomic():
        held = (BaselineCalibration.objects.select_for_update()
                .filter(pk=calibration_id, state=BaselineCalibration.RUNNING, worker=worker).first())
        if held is None:
            return False
        workloads = {w.uuid: w for w in held.problem.workloads.filter(uuid__in=uuids)}
        moment = timezone.now()
        held.timings.all().delete()  # an earlier attempt's, never an evaluation's: it never finished
        SharedTiming.objects.bulk_create(_timing(held, workloads[uuid], f, moment)
                                         for uuid, f in figures.items())
        held.state, held.finished_at, held.error = BaselineCalibration.DONE, moment, ""
        held.save(update_fields=["state", "finished_at", "error"])
    return True


def _timing(calibration: BaselineCalibration, workload: Any, f: Any, moment: Any) -> SharedTiming:
    base = f.baseline
    return SharedTiming(
        calibration=calibration, workload=workload, measured_at=moment,
        reference_ms=f.reference.ms, reference_spread=f.reference.spread, reference_rse=f.reference.rse,
        reference_kept=f.reference.kept, reference_rejected=f.reference.rejected,
        baseline_ms=base.ms if base else None, baseline_spread=base.spread if base else None,
        baseline_rse=base.rse if base else None, baseline_kept=base.kept if base else 0,
        baseline_rejected=base.rejected if base else 0, baseline_is_reference=f.baseline_is_reference,
        baseline_error=f.baseline_error,
        runs_ms={"reference": f.reference_runs_ms, "baseline": f.baseline_runs_ms})


def fail(calibration_id: int, worker: str, reason: str) -> bool:
    failed = BaselineCalibration.objects.filter(
        pk=calibration_id, state=BaselineCalibration.RUNNING, worker=worker).update(
        state=BaselineCalibration.FAILED, error=reason[:4000], finished_at=timezone.now())
    if failed:
        log.warning("baseline calibration #%s failed: %s", calibration_id, reason[:500])
    return failed == 1


def release(calibration_id: int, worker: str) -> bool:
    """A calibration its worker gave up unfinished (shutting down): queued, for the next request to send."""
    return BaselineCalibration.objects.filter(
        pk=calibration_id, state=BaselineCalibration.RUNNING, worker=worker).update(
        state=BaselineCalibration.QUEUED, sent_at=None, worker="", started_at=None) == 1
