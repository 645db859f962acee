"""Writes to the leaderboard tables: the hardware rows, the problem suite (versioned) and whose
solutions are revealed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.db import transaction
from django.db.models import Max, QuerySet

from evaluator.harness import problem as spec
from evaluator.harness.flops import FlopCount, count_reference_flops
from evaluator.harness.hidden import draw_hidden
from evaluator.harness.importer import import_problems
from evaluator.harness.names import CATEGORY_MAX, slug_of
from evaluator.scoring.hardware import BANDWIDTH_KEY, COMPUTE_CLASSES, HARDWARE
from solarena import changes, page_stamps

from .models import Category, Hardware, Problem, Workload


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    new_version: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)  # name -> current version, in sync order
    warnings: list[str] = field(default_factory=list)


def sync_hardware() -> None:
    """One row per entry of the hardware table; `calibrated` and `active` are left as they are."""
    for hw in HARDWARE.values():
        Hardware.objects.update_or_create(slug=hw.slug, defaults={
            "name": hw.name, "vendor": hw.vendor, "memory_gb": hw.memory_gb,
            "memory_bandwidth": hw.memory_bandwidth, "l2_bytes": hw.l2_bytes,
            "peak_flops": dict(hw.peak_flops),
        })


def store_calibration(slug: str, peaks: object) -> dict[str, float]:
    """Validate measured peaks (memory_bandwidth in bytes/s, compute classes in FLOP/s) and store
    them as the hardware's calibrated peaks, replacing earlier ones."""
    if not isinstance(peaks, dict) or not peaks:
        raise ValueError("peaks must be a non-empty object of name -> rate")
    unknown = sorted(set(peaks) - {BANDWIDTH_KEY, *COMPUTE_CLASSES})
    if unknown:
        known = ", ".join([BANDWIDTH_KEY, *COMPUTE_CLASSES])
        raise ValueError(f"unknown peak names {unknown}; known: {known}")
    for key, value in peaks.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ValueError(f"peak {key!r} must be a positive finite number, got {value!r}")
    updated = Hardware.objects.filter(slug=slug).update(calibrated={k: float(v) for k, v in peaks.items()})
    if not updated:
        raise ValueError(f"no hardware {slug!r}; run sync_problems first to load the hardware table")
    changes.changed(changes.SITE)  # the problems' pages show the peaks
    return {k: float(v) for k, v in peaks.items()}


def set_solutions_revealed(problems: QuerySet[Problem], revealed: bool) -> int:
    """An admin makes every source of these problem versions public, or private again (bar those
    their owners published). Returns how many problems changed."""
    page_stamps.drop_all()  # every page that shows a source of theirs
    changes.changed(changes.AGENTS)  # an agent's logs are public once all its solutions' sources are
    return problems.update(solutions_revealed=revealed)


def definition_hash(problem: spec.Problem) -> str:
    """What identifies a version: the definition and its public workloads (not the hidden ones,
    so another secret does not make a new version)."""
    document = {
        "definition": problem.definition.to_json(),
        "workloads": [w.to_json() for w in problem.workloads],
        "smoke": [w.to_json() for w in problem.smoke_workloads],
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


def sync_problems(directory: Path, secret: str) -> SyncReport:
    """Store every problem found under `directory`: new names as version 1, changed ones as a new
    version (the old one kept, with its results, but no longer current), all in one transaction.
    Raises ProblemError, storing nothing, for a malformed problem or for a name whose slug is a
    stored problem's of another name."""
    problems = import_problems(directory)
    report = SyncReport()
    with transaction.atomic():
        _check_stored_slugs(problems)
        for loaded in problems:
            _sync_one(loaded, secret, report)
    return report


def _check_stored_slugs(problems: list[spec.Problem]) -> None:
    stored = {row.slug: row for row in Problem.objects.select_for_update()
              .filter(is_current=True, slug__in=[p.slug for p in problems])}
    for loaded in problems:
        row = stored.get(loaded.slug)
        if row is not None and row.name != loaded.name:
            raise spec.ProblemError(
                str(loaded.directory or loaded.name), "name",
                f"{loaded.name!r} has the slug {loaded.slug!r} of the stored problem {row.name!r} "
                f"(v{row.version}); rename one")


def _sync_one(loaded: spec.Problem, secret: str, report: SyncReport) -> None:
    name, digest = loaded.name, definition_hash(loaded)
    current = Problem.objects.select_for_update().filter(name=name, is_current=True).first()
    if current is not None and current.definition_hash == digest:
        document = loaded.definition.to_json()
        if json.dumps(current.definition) != json.dumps(document):  # keys in jsonb's order (before 0009)
            current.definition = document
            current.save(update_fields=["definition"])
        report.unchanged.append(name)
        report.versions[name] = current.version
        return
    hidden = _hidden_workloads(loaded, secret, report)
    definition = loaded.definition
    category, _ = Category.objects.get_or_create(slug=slug_of(definition.category, CATEGORY_MAX),
                                                 defaults={"name": definition.category})
    version = 1
    if current is not None:
        version = Problem.objects.filter(name=name).aggregate(top=Max("version"))["top"] + 1
        current.is_current = False  # first, or the one-current-version constraint refuses the new row
        current.save(update_fields=["is_current"])
    row = Problem.objects.create(
        name=name, slug=loaded.slug, version=version, is_current=True, category=category,
        task_type=definition.task_type, op_type=definition.op_type or "",
        description=definition.description, definition=definition.to_json(), definition_hash=digest,
    )
    every = loaded.workloads + loaded.smoke_workloads + hidden
    counts = _reference_flops(definition, every, report)
    Workload.objects.bulk_create(
        Workload(problem=row, uuid=w.uuid, position=i, visibility=w.visibility, smoke=w.smoke,
                 axes=w.axes, inputs=w.inputs, tolerance=asdict(w.tolerance),
                 reference_flops=count.flops, flops_note=count.reason[:300])
        for i, (w, count) in enumerate(zip(every, counts, strict=True))
    )
    (report.created if version == 1 else report.new_version).append(name)
    report.versions[name] = version


def _reference_flops(
    definition: spec.Definition, workloads: list[spec.Workload], report: SyncReport
) -> list[FlopCount]:
    """The FLOPs of each workload counted from the reference, where the definition gives no
    sol.flops (nothing to count otherwise). Counted here, once per version, and stored: the pages
    and the scoring read the stored count and never run the reference."""
    if definition.sol is not None and definition.sol.flops:
        return [FlopCount(None) for _ in workloads]
    counts = [count_reference_flops(definition, w.axes, w.inputs) for w in workloads]
    failed = [c for c in counts if c.flops is None]
    if failed:
        report.warnings.append(f"{definition.name}: FLOPs not counted from the reference for "
                               f"{len(failed)} of {len(counts)} workloads, their bound is memory-only: "
                               f"{failed[0].reason}")
    return counts


def _hidden_workloads(loaded: spec.Problem, secret: str, report: SyncReport) -> list[spec.Workload]:
    definition = loaded.definition
    no_domain = [a.name for a in definition.var_axes if a.domain is None and a.smoke_domain is None]
    if no_domain and (definition.hidden.count or definition.hidden.smoke_count):
        report.warnings.append(f"{loaded.name}: no hidden workloads (var axes without a domain: "
                               f"{', '.join(no_domain)})")
        return []
    return draw_hidden(loaded, secret) + draw_hidden(loaded, secret, smoke=True)
