"""Turning the harness's raw measurements into the scored result document (trusted side).

The document's schema is documented in docs/result-format.md and is what `solarena eval --json`
prints; the server stores the same fields.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evaluator.harness import HARNESS_VERSION, status
from evaluator.harness.flops import FlopCount, count_reference_flops
from evaluator.harness.problem import Definition, Workload
from evaluator.scoring.hardware import HardwareSpec
from evaluator.scoring.roofline import roofline
from evaluator.scoring.score import WorkloadOutcome, problem_aggregates, sol_bound_ms, workload_score
from evaluator.scoring.sol import workload_work
from evaluator.scoring.uncertainty import Z95, ci95, mean_error, score_error
from evaluator.supervise import HarnessOutcome

SCHEMA = "solarena.eval/1"


def scored_workload(
    definition: Definition,
    workload: Workload,
    raw: Mapping[str, Any],
    hardware: HardwareSpec,
    calibrated: Mapping[str, float] | None = None,
    counted: FlopCount | None = None,
) -> dict[str, Any]:
    """One workload's row: raw measurements plus its SOL bound and score. `counted`: the
    reference's FLOPs stored at sync; where None and the definition has no sol.flops, they are
    counted here (the local CLI has no stored counts)."""
    if counted is None and not (definition.sol and definition.sol.flops):
        counted = count_reference_flops(definition, workload.axes, workload.inputs)
    work = workload_work(definition, workload.axes, counted)
    sol_ms = sol_bound_ms(work.flops, work.bytes, hardware, work.dtype, calibrated)
    verdict = raw.get("status", status.RUNTIME_ERROR)
    kernel = raw.get("latency_ms")
    baseline = raw.get("baseline_latency_ms")
    reference = raw.get("reference_latency_ms")
    row: dict[str, Any] = {
        "uuid": workload.uuid,
        "axes": dict(workload.axes),
        "visibility": workload.visibility,
        "smoke": workload.smoke,
        "status": verdict,
        "message": raw.get("message", ""),
        "latency_ms": kernel,
        "reference_latency_ms": reference,
        "baseline_latency_ms": baseline,
        "sol_ms": sol_ms,
        "flops": work.flops,
        "bytes": work.bytes,
        "flops_from": work.flops_from,
        "bytes_from": work.bytes_from,
        "score": 0.0,
        "below_sol": False,
        "speedup_vs_reference": None,
    }
    target = baseline or reference  # a baseline that failed here leaves the reference as the bar
    if verdict == status.PASSED and kernel == 0:
        # On the CPU the time is the outside clock less the harness's least overhead, which a call
        # on a busy host can fall under: a time the harness could not tell from nothing.
        row["below_sol"] = True
        row["message"] = ("timed at 0 ms: the call took no longer than the harness's own overhead, "
                          "so no time can be scored")
    elif verdict == status.PASSED and kernel and target:
        result = workload_score(kernel, target, sol_ms)
        row["score"], row["below_sol"] = result.score, result.below_sol
        if result.note:
            row["message"] = result.note
        target_timing = raw.get("baseline_timing") if baseline and not raw.get("baseline_is_reference") \
            else raw.get("reference_timing")
        if result.score > 0:
            row["score_ci95"] = ci95(score_error(kernel, _rse(raw.get("timing")), target,
                                                 _rse(target_timing), sol_ms))
    if verdict == status.PASSED and kernel and reference:
        row["speedup_vs_reference"] = reference / kernel
    row["roofline"] = roofline(work, hardware, kernel if verdict == status.PASSED else None,
                               calibrated).to_dict()
    for key in ("timing", "reference_timing", "baseline_timing", "correctness", "baseline_error",
                "baseline_is_reference", "shared_baseline", "profile"):
        if key in raw:
            row[key] = raw[key]
    return row


def _rse(timing: Any) -> float:
    rse = timing.get("rse") if isinstance(timing, Mapping) else None
    return float(rse) if isinstance(rse, int | float) and math.isfinite(rse) and rse >= 0 else 0.0


def _with_intervals(aggregates: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The 95% half-width of the score's mean over all workloads, and over the visible and hidden
    ones (docs/scoring.md, "Uncertainty")."""
    def half_width(chosen: list[dict[str, Any]]) -> float | None:
        errors = [r.get("score_ci95", 0.0) / Z95 for r in chosen]
        return ci95(mean_error(errors, len(chosen))) if chosen else None

    return {**aggregates, "score_ci95": half_width(rows),
            "visible_score_ci95": half_width([r for r in rows if r["visibility"] == "visible"]),
            "hidden_score_ci95": half_width([r for r in rows if r["visibility"] != "visible"])}


def build_report(
    definition: Definition,
    workloads: list[Workload],
    outcome: HarnessOutcome,
    hardware: HardwareSpec,
    calibrated: Mapping[str, float] | None = None,
    counted: Mapping[str, FlopCount] | None = None,
) -> dict[str, Any]:
    """`counted`: the reference's FLOPs per workload uuid, as stored at sync (see scored_workload)."""
    rows = [
        scored_workload(definition, w, outcome.results.get(w.uuid, {
            "status": status.RUNTIME_ERROR, "message": "no result was reported"}), hardware, calibrated,
            (counted or {}).get(w.uuid))
        for w in workloads
    ]
    outcomes = [
        WorkloadOutcome(
            uuid=r["uuid"], visibility=r["visibility"], status=r["status"],
            kernel_ms=r["latency_ms"], reference_ms=r["reference_latency_ms"],
            baseline_ms=r["baseline_latency_ms"], sol_ms=r["sol_ms"], score=r["score"],
        )
        for r in rows
    ]
    return {
        "schema": SCHEMA,
        "harness_version": HARNESS_VERSION,
        "problem": definition.name,
        "category": definition.category,
        "task_type": definition.task_type,
        "hardware": hardware.slug,
        "environment": outcome.environment,
        "solution_error": outcome.solution_error,
        "workloads": rows,
        "aggregates": _with_intervals(problem_aggregates(outcomes).to_dict(), rows),
    }
