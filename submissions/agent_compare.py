"""Two agent uploads side by side on one hardware: the suite's and each task type's figures with
their deltas, and every problem of the suite with its scores in both and b minus a (docs/scoring.md,
"Agent suites"). The pages, the API and the CLI all compare through here."""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.scoring.suite import ProblemDelta, SuiteFigures, better, compare, figure_deltas

from . import agent_results
from .agent_results import HardwareResults, ProblemRow, UploadResults
from .models import AgentSubmission


class CompareError(ValueError):
    """Two uploads that cannot be compared as asked; the message says why."""


@dataclass(frozen=True)
class ComparedProblem:
    delta: ProblemDelta
    a: ProblemRow | None  # None: not in upload a's suite nor solved by it
    b: ProblemRow | None


@dataclass(frozen=True)
class ComparedTaskType:
    task_type: str
    a: SuiteFigures | None
    b: SuiteFigures | None

    @property
    def delta(self) -> dict[str, float | None]:
        return figure_deltas(self.a, self.b)


@dataclass
class Comparison:
    hardware: str
    a: UploadResults
    b: UploadResults
    a_here: HardwareResults
    b_here: HardwareResults
    problems: list[ComparedProblem]

    @property
    def suite_delta(self) -> dict[str, float | None]:
        return figure_deltas(self.a_here.suite, self.b_here.suite)

    @property
    def task_types(self) -> list[ComparedTaskType]:
        mine, theirs = self.a_here.task_types, self.b_here.task_types
        names = [*mine, *(name for name in theirs if name not in mine)]
        return [ComparedTaskType(name, mine.get(name), theirs.get(name)) for name in names]

    @property
    def better(self) -> str | None:
        """Which upload ranks higher over the suite by the agent board's rule ("a" or "b"): correct
        first, then the suite score; None where they stand level."""
        return better(self.a_here.suite.rank_key(), self.b_here.suite.rank_key())

    @property
    def improved(self) -> int:
        """Problems b ranks above a on (correct first, then the score)."""
        return sum(1 for problem in self.problems if problem.delta.better == "b")

    @property
    def worse(self) -> int:
        """Problems b ranks below a on."""
        return sum(1 for problem in self.problems if problem.delta.better == "a")


def compare_uploads(a: AgentSubmission, b: AgentSubmission, hardware: str | None = None) -> Comparison:
    """Upload a against upload b on `hardware`, or on the first hardware (by slug) both ran on.
    Raises CompareError when they share none, or not the one asked for."""
    suite = agent_results.current_suite()
    found = agent_results.results([a, b], suite=suite)
    first, second = found[a.pk], found[b.pk]
    shared = sorted({h.hardware for h in first.hardware} & {h.hardware for h in second.hardware})
    slug = hardware or (shared[0] if shared else None)
    if slug is None or slug not in shared:
        raise CompareError(_no_shared_hardware(first, second, hardware))
    a_here, b_here = first.on(slug), second.on(slug)
    assert a_here is not None and b_here is not None
    rows_a = {row.problem: row for row in a_here.problems}
    rows_b = {row.problem: row for row in b_here.problems}
    deltas = compare(a_here.results(), b_here.results(), suite.pairs())
    return Comparison(slug, first, second, a_here, b_here,
                      [ComparedProblem(d, rows_a.get(d.problem), rows_b.get(d.problem)) for d in deltas])


def _no_shared_hardware(a: UploadResults, b: UploadResults, asked: str | None) -> str:
    def ran_on(upload: UploadResults) -> str:
        slugs = ", ".join(h.hardware for h in upload.hardware) or "no hardware yet"
        return f"upload #{upload.agent.pk} ({upload.agent.name} {upload.agent.version}) ran on {slugs}"

    what = f"both did not run on {asked}" if asked else "they share no hardware"
    return f"cannot compare: {what}; {ran_on(a)} and {ran_on(b)}"
