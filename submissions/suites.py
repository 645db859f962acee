"""Where an agent submission stands: its status, and its suite score on each hardware.

The suite score of an agent submission on one hardware is the mean, over the suite (every current
problem), of each problem's evaluation score on that hardware; a problem missing from the bundle,
and an evaluation that failed, was cancelled, is marked a reward hack or is not finished yet,
counts 0; of a solution's evaluations on the hardware only the one that counts is read
(evaluator.counting: not a confirmation run, not one a rescore replaced). The figures beyond the
suite score, problem by problem and per task type, and the agent board: agent_results.py and
leaderboard/agent_boards.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Prefetch, QuerySet, Subquery

from evaluator import confirmations, hidden_results
from evaluator.counting import counted
from evaluator.models import Evaluation
from evaluator.scoring.suite import ProblemResult, suite_figures
from leaderboard.models import Problem

from .models import AgentSubmission

QUEUED, RUNNING, DONE = "queued", "running", "done"


@dataclass(frozen=True)
class Suite:
    hardware: str
    status: str
    score: float
    problems: int
    scored: int  # problems with a valid score: scored, not a reward hack, some workload passed


def status_of(states: Iterable[str]) -> str:
    """queued while nothing has started, done when every evaluation is finished, running between."""
    states = list(states)
    if all(state in Evaluation.TERMINAL for state in states):
        return DONE
    if all(state == Evaluation.QUEUED for state in states):
        return QUEUED
    return RUNNING


def is_valid(state: str, reward_hack: bool, score: float | None) -> bool:
    """The boards' valid evaluation: scored, not a reward hack, some workload passed (score above 0)."""
    return state == Evaluation.SCORED and not reward_hack and score is not None and score > 0


def problem_result(problem: str, task_type: str, evaluation: Evaluation) -> ProblemResult:
    """What one problem's evaluation adds to a suite (evaluator.scoring.suite)."""
    valid = is_valid(evaluation.state, evaluation.reward_hack, evaluation.score)
    return ProblemResult.of(problem, task_type, valid, evaluation.score, evaluation.aggregates or {})


def with_suite_size(agents: QuerySet[AgentSubmission]) -> QuerySet[AgentSubmission]:
    """Annotate `suite_size`, the number of current problems, in the same query."""
    current = (Problem.objects.filter(is_current=True).order_by().values("is_current")
               .annotate(n=Count("pk")).values("n"))
    return agents.annotate(suite_size=Subquery(current))


def with_evaluations(agents: QuerySet[AgentSubmission]) -> QuerySet[AgentSubmission]:
    """The agent submissions with the suite's size, their submissions, problems and evaluations in
    a few queries."""
    evaluations = (confirmations.with_status(counted()).select_related("hardware").order_by("hardware__slug")
                   .prefetch_related(hidden_results.verdicts()))
    return with_suite_size(agents).prefetch_related(
        Prefetch("submissions__evaluations", queryset=evaluations), "submissions__problem")


def suites(agent: AgentSubmission) -> list[Suite]:
    """One suite per hardware the agent submission was evaluated on, by slug (needs with_suite_size
    and the prefetch of with_evaluations); its figures are evaluator.scoring.suite's, as everywhere."""
    by_hardware: dict[str, list[tuple[Problem, Evaluation]]] = {}
    for submission in agent.submissions.all():
        for evaluation in submission.evaluations.all():
            by_hardware.setdefault(evaluation.hardware.slug, []).append((submission.problem, evaluation))
    result = []
    for slug, pairs in sorted(by_hardware.items()):
        figures = suite_figures([problem_result(p.name, p.task_type, e) for p, e in pairs],
                                agent.suite_size or 0)
        result.append(Suite(hardware=slug, status=status_of(e.state for _, e in pairs), score=figures.score,
                            problems=figures.problems, scored=figures.solved))
    return result


def missing_problems(agent: AgentSubmission) -> list[str]:
    """Names of the current problems the agent submission has no solution for, by name."""
    solved = {submission.problem.name for submission in agent.submissions.all()}
    return sorted(name for name in Problem.objects.filter(is_current=True).values_list("name", flat=True)
                  if name not in solved)


def agent_status(agent: AgentSubmission) -> str:
    return status_of(e.state for s in agent.submissions.all() for e in s.evaluations.all())
