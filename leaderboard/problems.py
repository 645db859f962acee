"""Between the database and the harness's typed problem objects."""

from __future__ import annotations

from collections.abc import Iterable

from evaluator.harness import problem as spec
from evaluator.harness.flops import FlopCount
from evaluator.scoring.hardware import HARDWARE
from evaluator.scoring.score import sol_bound_ms
from evaluator.scoring.sol import WorkloadWork, workload_work

from .models import Hardware, Problem, Workload


def definition_of(problem: Problem) -> spec.Definition:
    return spec.definition_from_json(problem.definition, f"problem {problem.name} v{problem.version}")


def harness_workload(workload: Workload, definition: spec.Definition) -> spec.Workload:
    return spec.Workload(
        uuid=workload.uuid,
        axes=dict(workload.axes),
        inputs=dict(workload.inputs),
        tolerance=definition.tolerance.merged(workload.tolerance, workload.uuid),
        visibility=workload.visibility,
        smoke=workload.smoke,
    )


def harness_problem(problem: Problem) -> spec.Problem:
    """The stored version as the harness sees it (visible and smoke workloads; hidden ones are
    read separately, see workloads_for)."""
    definition = definition_of(problem)
    rows = list(problem.workloads.filter(visibility=Workload.VISIBLE))
    return spec.Problem(
        definition,
        [harness_workload(w, definition) for w in rows if not w.smoke],
        [harness_workload(w, definition) for w in rows if w.smoke],
    )


def workloads_for(problem: Problem, *, smoke: bool, hidden: bool = True,
                  only: str = "") -> list[spec.Workload]:
    """Every workload an evaluation runs: smoke-sized ones on the CPU, full-size ones on GPUs;
    visible first, then hidden (none with hidden=False: the modes that never touch them). With
    `only` (a profile run's one workload), that visible workload alone, whatever its size."""
    definition = definition_of(problem)
    if only:
        return [harness_workload(w, definition)
                for w in problem.workloads.filter(uuid=only, visibility=Workload.VISIBLE)]
    rows = problem.workloads.filter(smoke=smoke).order_by("position")
    if not hidden:
        rows = rows.filter(visibility=Workload.VISIBLE)
    ordered = [w for w in rows if w.visibility == Workload.VISIBLE] + [
        w for w in rows if w.visibility == Workload.HIDDEN
    ]
    return [harness_workload(w, definition) for w in ordered]


def stored_flops(workload: Workload) -> FlopCount:
    """The reference's FLOPs as counted at sync (services._reference_flops)."""
    return FlopCount(workload.reference_flops,
                     workload.flops_note or "this version was synced before FLOPs were counted")


def stored_flops_by_uuid(problem: Problem) -> dict[str, FlopCount]:
    """Every workload's stored count, hidden ones included (for scoring, never for pages)."""
    return {w.uuid: stored_flops(w) for w in problem.workloads.all()}


def visible_work(problem: Problem) -> list[tuple[Workload, WorkloadWork]]:
    """Each visible workload with its FLOPs and bytes. Hidden workloads are not read at all."""
    definition = definition_of(problem)
    return [(w, workload_work(definition, w.axes, stored_flops(w)))
            for w in problem.workloads.filter(visibility=Workload.VISIBLE).order_by("position")]


def sol_bounds(work: WorkloadWork, hardware: Iterable[Hardware]) -> dict[str, float]:
    """The SOL bound in ms on each hardware of the table (calibrated peaks where measured)."""
    return {hw.slug: sol_bound_ms(work.flops, work.bytes, HARDWARE[hw.slug], work.dtype,
                                  hw.calibrated or None)
            for hw in hardware if hw.slug in HARDWARE}


def visible_sol_bounds(
    problem: Problem, hardware: Iterable[Hardware]
) -> list[tuple[Workload, dict[str, float]]]:
    """Each visible workload with its SOL bound in ms on each hardware. Hidden workloads are not
    read at all."""
    hardware = list(hardware)
    return [(workload, sol_bounds(work, hardware)) for workload, work in visible_work(problem)]
