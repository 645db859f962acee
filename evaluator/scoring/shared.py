"""Shared baseline and reference times (docs/scoring.md, "Shared baselines"): figured once per
problem version, workload, hardware and harness from several calibration runs (robust.py), then
put into each evaluation's raw results in place of times the evaluation did not take itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.harness import status
from evaluator.scoring.robust import MIN_RUNS, RobustTime, TooFewRuns, robust_time

# The harness's options that leave the reference and the baseline untimed (their times are shared).
SHARED_OPTIONS: dict[str, bool] = {"time_reference": False, "time_baseline": False}
# A calibration run's: the solution (the reference itself) is checked, the yardsticks are timed.
CALIBRATION_OPTIONS: dict[str, bool] = {"time_solution": False, "time_reference": True, "time_baseline": True}


@dataclass(frozen=True)
class WorkloadFigures:
    """One workload's shared times from a calibration's runs."""

    reference: RobustTime
    baseline: RobustTime | None  # None: the problem has none (baseline_is_reference) or it failed
    baseline_is_reference: bool
    baseline_error: str
    reference_runs_ms: list[float | None]
    baseline_runs_ms: list[float | None]


@dataclass(frozen=True)
class SharedTimes:
    """A stored workload's shared times, as an evaluation uses them."""

    id: int
    reference_ms: float
    reference_rse: float
    baseline_ms: float | None
    baseline_rse: float | None
    baseline_is_reference: bool
    baseline_error: str
    runs: int
    measured_at: str


def workload_figures(runs: Sequence[Mapping[str, Any]], min_runs: int = MIN_RUNS) -> WorkloadFigures:
    """A workload's figures from its raw result in each calibration run; TooFewRuns (with the
    reason) when the reference has too few usable times."""
    passed = [run for run in runs if run.get("status") == status.PASSED]
    reference_ms = [run.get("reference_latency_ms") if run.get("status") == status.PASSED else None
                    for run in runs]
    failures = sorted({str(run.get("message") or run.get("status")) for run in runs
                       if run.get("status") != status.PASSED})
    try:
        reference = robust_time(reference_ms, [_rse(run.get("reference_timing")) for run in runs], min_runs)
    except TooFewRuns as exc:
        why = f" ({'; '.join(failures)[:500]})" if failures else ""
        raise TooFewRuns(f"the reference: {exc}{why}") from None
    is_reference = any(run.get("baseline_is_reference") for run in passed)
    baseline_ms = [None if is_reference else run.get("baseline_latency_ms") for run in runs]
    baseline, error = None, ""
    if not is_reference:
        try:
            baseline = robust_time(baseline_ms, [_rse(run.get("baseline_timing")) for run in runs], min_runs)
        except TooFewRuns as exc:
            errors = sorted({str(run["baseline_error"]) for run in runs if run.get("baseline_error")})
            error = "; ".join(errors)[:2000] or f"the baseline: {exc}"
    return WorkloadFigures(reference, baseline, is_reference, error, reference_ms, baseline_ms)


def _rse(timing: Any) -> float | None:
    return timing.get("rse") if isinstance(timing, Mapping) else None


def with_shared_times(results: Mapping[str, Mapping[str, Any]],
                      shared: Mapping[str, SharedTimes]) -> dict[str, dict[str, Any]]:
    """The harness's raw results with the shared times put in each passed workload's row, as if the
    run had timed them; `shared_baseline` names the stored figures. Rows that did not pass carry no
    yardstick times, as in a run that times them itself."""
    out: dict[str, dict[str, Any]] = {}
    for uuid, raw in results.items():
        row = dict(raw)
        times = shared.get(uuid)
        if times is not None and row.get("status") == status.PASSED:
            row.update(_yardsticks(times))
        out[uuid] = row
    return out


def _yardsticks(times: SharedTimes) -> dict[str, Any]:
    def timing(ms: float, rse: float | None) -> dict[str, Any]:
        return {"median_ms": ms, "rse": rse or 0.0, "shared": True, "runs": times.runs}

    row: dict[str, Any] = {
        "reference_latency_ms": times.reference_ms,
        "reference_timing": timing(times.reference_ms, times.reference_rse),
        "shared_baseline": {"id": times.id, "measured_at": times.measured_at, "runs": times.runs},
    }
    if times.baseline_is_reference:
        row.update(baseline_latency_ms=times.reference_ms, baseline_is_reference=True)
    elif times.baseline_ms is not None:
        row.update(baseline_latency_ms=times.baseline_ms,
                   baseline_timing=timing(times.baseline_ms, times.baseline_rse))
    elif times.baseline_error:
        row["baseline_error"] = times.baseline_error
    return row
