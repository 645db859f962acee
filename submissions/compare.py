"""Two submissions of one problem side by side on one hardware: each visible workload both ran,
with the two times, scores and their ratio. What a submission page shows anyone (docs/pages.md);
hidden workloads only as each side's aggregate, never row by row."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch

from evaluator.counting import counted
from evaluator.harness import status
from evaluator.hidden_results import hidden_summary, visible_results
from evaluator.models import Evaluation, WorkloadResult

from .models import Submission
from .visibility import can_view


class CannotCompare(ValueError):
    """Two submissions that cannot be set side by side; the message says why and what would do."""


@dataclass(frozen=True)
class Side:
    submission: int
    user: str
    language: str
    problem_version: int
    state: str
    score: float | None
    hidden: dict[str, Any] | None


@dataclass(frozen=True)
class WorkloadPair:
    uuid: str
    axes: dict[str, int]
    a: dict[str, Any]  # status, latency_ms, score
    b: dict[str, Any]
    latency_ratio: float | None  # b's time over a's, both passed: under 1, b is faster
    score_delta: float  # b's score minus a's


@dataclass(frozen=True)
class Comparison:
    problem: str
    hardware: str
    a: Side
    b: Side
    workloads: list[WorkloadPair] = field(default_factory=list)

    @property
    def geomean_latency_ratio(self) -> float | None:
        ratios = [p.latency_ratio for p in self.workloads if p.latency_ratio]
        return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None

    @property
    def faster_in_b(self) -> int:
        return sum(1 for p in self.workloads if p.latency_ratio is not None and p.latency_ratio < 1)


def compare(a_id: int, b_id: int, hardware: str | None = None, viewer: Any = None) -> Comparison:
    """Raises Submission.DoesNotExist for an unknown id or one `viewer` may not read (a test or
    benchmark run of someone else's), CannotCompare for two problems, or no hardware (or an
    ambiguous one) both were evaluated on."""
    results = WorkloadResult.objects.select_related("workload").order_by("workload__position")
    evaluations = counted().select_related("hardware").prefetch_related(Prefetch("results", queryset=results))
    found = {s.pk: s for s in Submission.objects.select_related("problem", "owner").prefetch_related(
        Prefetch("evaluations", queryset=evaluations)).filter(pk__in=[a_id, b_id])}
    for wanted in (a_id, b_id):
        if wanted not in found or not can_view(viewer, found[wanted]):
            raise Submission.DoesNotExist(f"no submission #{wanted}")
    a, b = found[a_id], found[b_id]
    if a.problem.name != b.problem.name:
        raise CannotCompare(f"#{a.pk} is for {a.problem.name}, #{b.pk} for {b.problem.name}: compare "
                            "submissions of one problem")
    slug = _hardware(a, b, hardware)
    ea, eb = _on(a, slug), _on(b, slug)
    rows_b = {r.workload.uuid: r for r in visible_results(eb.results.all())}
    pairs = [_pair(ra, rows_b[ra.workload.uuid]) for ra in visible_results(ea.results.all())
             if ra.workload.uuid in rows_b]
    return Comparison(a.problem.name, slug, _side(a, ea), _side(b, eb), pairs)


def _hardware(a: Submission, b: Submission, wanted: str | None) -> str:
    common = sorted(set(_slugs(a)) & set(_slugs(b)))
    if wanted is not None:
        if wanted not in common:
            raise CannotCompare(f"#{a.pk} and #{b.pk} were not both evaluated on {wanted!r}; both were on: "
                                f"{', '.join(common) or 'no hardware'}")
        return wanted
    if len(common) == 1:
        return common[0]
    if not common:
        raise CannotCompare(f"#{a.pk} and #{b.pk} share no hardware: #{a.pk} ran on "
                            f"{', '.join(_slugs(a)) or 'none'}, #{b.pk} on {', '.join(_slugs(b)) or 'none'}")
    raise CannotCompare(f"#{a.pk} and #{b.pk} both ran on {', '.join(common)}: name one (hardware)")


def _slugs(submission: Submission) -> list[str]:
    return sorted(e.hardware.slug for e in submission.evaluations.all())


def _on(submission: Submission, slug: str) -> Evaluation:
    """The submission's evaluation on the hardware: the one that counts (evaluator.counting; the
    evaluations are prefetched from counted())."""
    return next(e for e in submission.evaluations.all() if e.hardware.slug == slug)


def _side(submission: Submission, evaluation: Evaluation) -> Side:
    hidden = hidden_summary(evaluation)
    return Side(submission.pk, submission.owner.get_username(), submission.language,
                submission.problem.version, evaluation.state, evaluation.score,
                hidden.to_dict() if hidden else None)


def _pair(ra: WorkloadResult, rb: WorkloadResult) -> WorkloadPair:
    ratio = None
    if ra.status == rb.status == status.PASSED and ra.latency_ms and rb.latency_ms:
        ratio = rb.latency_ms / ra.latency_ms
    return WorkloadPair(ra.workload.uuid, dict(ra.workload.axes), _cell(ra), _cell(rb), ratio,
                        rb.score - ra.score)


def _cell(result: WorkloadResult) -> dict[str, Any]:
    return {"status": result.status, "latency_ms": result.latency_ms, "score": result.score}


__all__: Sequence[str] = ["CannotCompare", "Comparison", "compare"]
