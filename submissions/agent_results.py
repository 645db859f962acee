"""What agent uploads scored, problem by problem, on each hardware they ran on, with the suite and
task-type figures of evaluator.scoring.suite (docs/scoring.md, "Agent suites"): the one read model
behind the agent board, the agent page, the compare page, the API and the downloads. A few queries
whatever the number of uploads: the current suite, and the evaluations that count (one row each,
with the figures of their aggregates, no model instances)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.counting import counted
from evaluator.harness.problem import TASK_TYPES
from evaluator.models import Evaluation, WorkloadResult
from evaluator.scoring.outcome import evaluation_outcome
from evaluator.scoring.suite import ProblemResult, SuiteFigures, by_task_type, suite_figures
from leaderboard.models import Hardware, Problem, Workload

from .models import AgentSubmission
from .suites import is_valid, status_of

# What of an evaluation's aggregates the figures read (evaluator.scoring.score.ProblemAggregates).
AGGREGATES = ("visible_score", "hidden_score", "visible_passed", "visible_total", "hidden_passed",
              "hidden_total", "conditional_correctness", "passed", "total")
# What the manifest says the agent spent on a problem (Submission.agent_usage); None where not given.
USAGE = ("cost_usd", "tokens_input", "tokens_output", "wall_seconds")
LEFT_OUT = "left out"


@dataclass(frozen=True)
class SuiteProblem:
    name: str
    slug: str
    task_type: str


@dataclass(frozen=True)
class Suite:
    """The current problems an upload is measured over, by name."""

    problems: list[SuiteProblem]

    @property
    def sizes(self) -> dict[str, int]:
        """The number of problems of each task type, in TASK_TYPES order (types without one left out)."""
        counts = {task_type: 0 for task_type in TASK_TYPES}
        for problem in self.problems:
            counts[problem.task_type] = counts.get(problem.task_type, 0) + 1
        return {task_type: n for task_type, n in counts.items() if n}

    def pairs(self) -> list[tuple[str, str]]:
        return [(p.name, p.task_type) for p in self.problems]


def current_suite() -> Suite:
    rows = Problem.objects.filter(is_current=True).order_by("name").values_list("name", "slug", "task_type")
    return Suite([SuiteProblem(*row) for row in rows])


@dataclass(frozen=True)
class ProblemRow:
    """One problem of the suite in an upload on one hardware; `submission` None: left out."""

    result: ProblemResult | None
    problem: str
    problem_slug: str
    task_type: str
    submission: int | None = None
    outcome: str = LEFT_OUT
    outcome_css: str = "state-left-out"  # the outcome's colour on the pages (evaluator.scoring.outcome)
    usage: dict[str, Any] = field(default_factory=dict)  # the manifest's figures for it, those given

    @property
    def cost_usd(self) -> float | None:
        return self.usage.get("cost_usd")

    @property
    def tokens_input(self) -> int | None:
        return self.usage.get("tokens_input")

    @property
    def tokens_output(self) -> int | None:
        return self.usage.get("tokens_output")

    @property
    def wall_seconds(self) -> float | None:
        return self.usage.get("wall_seconds")

    def to_dict(self) -> dict[str, Any]:
        """Every figure; a left-out problem's as a result with nothing passed (it scores 0)."""
        result = self.result or ProblemResult(self.problem, self.task_type)
        return {**result.to_dict(), "problem_slug": self.problem_slug, "submission": self.submission,
                "outcome": self.outcome, **{key: self.usage.get(key) for key in USAGE}}


@dataclass
class HardwareResults:
    """An upload on one hardware: its status, the suite's figures, those of each task type, and every
    problem of the suite (the left-out ones too) with those the upload has beyond it."""

    hardware: str
    status: str
    suite: SuiteFigures
    task_types: dict[str, SuiteFigures]
    problems: list[ProblemRow]

    @property
    def missing(self) -> list[str]:
        return [row.problem for row in self.problems if row.submission is None]

    def results(self) -> list[ProblemResult]:
        return [row.result for row in self.problems if row.result is not None]


@dataclass
class UploadResults:
    agent: AgentSubmission
    hardware: list[HardwareResults] = field(default_factory=list)

    def on(self, slug: str) -> HardwareResults | None:
        return next((found for found in self.hardware if found.hardware == slug), None)


def results(agents: Sequence[AgentSubmission], hardware: Hardware | None = None,
            suite: Suite | None = None) -> dict[int, UploadResults]:
    """Each upload's results on every hardware it ran on (only `hardware` when given), by id: one
    query, one more for the suite when not given, and one for the visible verdicts where a scored
    evaluation passed nothing."""
    suite = current_suite() if suite is None else suite
    rows = counted().filter(submission__agent_submission__in=[agent.pk for agent in agents])
    if hardware is not None:
        rows = rows.filter(hardware=hardware)
    values = list(rows.order_by().values(
        "pk", "submission__agent_submission", "submission_id", "hardware__slug", "state", "reward_hack",
        "score", "submission__problem__name", "submission__problem__slug", "submission__problem__task_type",
        "submission__agent_usage", *(f"aggregates__{key}" for key in AGGREGATES)))
    verdicts = _verdicts_where_nothing_passed(values)
    found: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for row in values:
        row["verdicts"] = verdicts.get(row["pk"], [])
        found.setdefault((row["submission__agent_submission"], row["hardware__slug"]), []).append(row)
    by_upload = {agent.pk: UploadResults(agent) for agent in agents}
    for (pk, slug), evaluations in sorted(found.items(), key=lambda item: item[0]):
        by_upload[pk].hardware.append(_on_hardware(slug, evaluations, suite))
    return by_upload


def _verdicts_where_nothing_passed(rows: list[dict[str, Any]]) -> dict[int, list[str]]:
    """The visible verdicts of the scored evaluations that passed nothing, which alone need them for
    their outcome ("did not compile" or "incorrect on every workload"); no query when there is none."""
    ids = [row["pk"] for row in rows if row["state"] == Evaluation.SCORED and row["aggregates__passed"] == 0]
    found: dict[int, list[str]] = {}
    if ids:
        visible = WorkloadResult.objects.filter(evaluation__in=ids, workload__visibility=Workload.VISIBLE)
        for pk, verdict in visible.values_list("evaluation_id", "status"):
            found.setdefault(pk, []).append(verdict)
    return found


def upload_results(agent: AgentSubmission) -> UploadResults:
    return results([agent])[agent.pk]


def _on_hardware(slug: str, evaluations: list[dict[str, Any]], suite: Suite) -> HardwareResults:
    rows = {row["submission__problem__name"]: _problem_row(row) for row in evaluations}
    for problem in suite.problems:
        if problem.name not in rows:
            rows[problem.name] = ProblemRow(None, problem.name, problem.slug, problem.task_type)
    ordered = [rows[name] for name in sorted(rows)]
    results = [row.result for row in ordered if row.result is not None]
    return HardwareResults(slug, status_of(row["state"] for row in evaluations),
                           suite_figures(results, len(suite.problems)), by_task_type(results, suite.sizes),
                           ordered)


def _problem_row(row: dict[str, Any]) -> ProblemRow:
    aggregates = {key: row[f"aggregates__{key}"] for key in AGGREGATES}
    valid = is_valid(row["state"], row["reward_hack"], row["score"])
    name, task_type = row["submission__problem__name"], row["submission__problem__task_type"]
    outcome = evaluation_outcome(row["state"], row["reward_hack"], aggregates, row["verdicts"])
    usage = row["submission__agent_usage"] or {}
    return ProblemRow(ProblemResult.of(name, task_type, valid, row["score"], aggregates), name,
                      row["submission__problem__slug"], task_type, row["submission_id"], outcome.text,
                      outcome.css, {key: usage[key] for key in USAGE if usage.get(key) is not None})
