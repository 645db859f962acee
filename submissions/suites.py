"""Where an agent submission stands: its status, and its suite score on each hardware.

The suite score of an agent submission on one hardware is the mean, over the suite (every current
problem), of each problem's evaluation score on that hardware; a problem missing from the bundle,
and an evaluation that failed, was cancelled, is marked a reward hack or is not finished yet,
counts 0. The agent board
of a hardware ranks each (agent name, owner) by its best suite score among the agent submissions
whose evaluations on that hardware are all finished (ties go to the earlier upload).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet, Subquery, Sum

from evaluator import hidden_results, modes
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem

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


def evaluation_score(evaluation: Evaluation) -> float:
    """What one problem adds to a suite: its score when scored and not a reward hack, else 0."""
    if evaluation.state != Evaluation.SCORED or evaluation.reward_hack or evaluation.score is None:
        return 0.0
    return float(evaluation.score)


def with_suite_size(agents: QuerySet[AgentSubmission]) -> QuerySet[AgentSubmission]:
    """Annotate `suite_size`, the number of current problems, in the same query."""
    current = (Problem.objects.filter(is_current=True).order_by().values("is_current")
               .annotate(n=Count("pk")).values("n"))
    return agents.annotate(suite_size=Subquery(current))


def with_evaluations(agents: QuerySet[AgentSubmission]) -> QuerySet[AgentSubmission]:
    """The agent submissions with the suite's size, their submissions, problems and evaluations in
    a few queries."""
    evaluations = (Evaluation.objects.select_related("hardware").order_by("hardware__slug")
                   .prefetch_related(hidden_results.verdicts()))
    return with_suite_size(agents).prefetch_related(
        Prefetch("submissions__evaluations", queryset=evaluations), "submissions__problem")


def suites(agent: AgentSubmission) -> list[Suite]:
    """One suite per hardware the agent submission was evaluated on, by slug (needs with_suite_size
    and the prefetch of with_evaluations)."""
    submissions = list(agent.submissions.all())
    size = max(agent.suite_size or 0, len(submissions))
    by_hardware: dict[str, list[Evaluation]] = {}
    for submission in submissions:
        for evaluation in submission.evaluations.all():
            by_hardware.setdefault(evaluation.hardware.slug, []).append(evaluation)
    result = []
    for slug, evaluations in sorted(by_hardware.items()):
        total = sum(evaluation_score(e) for e in evaluations)
        scored = sum(1 for e in evaluations if evaluation_score(e) > 0)
        result.append(Suite(hardware=slug, status=status_of(e.state for e in evaluations),
                            score=total / size if size else 0.0, problems=size, scored=scored))
    return result


def missing_problems(agent: AgentSubmission) -> list[str]:
    """Names of the current problems the agent submission has no solution for, by name."""
    solved = {submission.problem.name for submission in agent.submissions.all()}
    return sorted(name for name in Problem.objects.filter(is_current=True).values_list("name", flat=True)
                  if name not in solved)


def agent_status(agent: AgentSubmission) -> str:
    return status_of(e.state for s in agent.submissions.all() for e in s.evaluations.all())


def summaries(agents: list[AgentSubmission]) -> dict[int, tuple[str, list[Suite]]]:
    """Each agent submission's agent_status and suites, from counts and sums the database makes
    per agent submission and hardware (one query) instead of from every evaluation. The agents
    need with_suite_size and `solutions`, their number of submissions."""
    counted = Q(state=Evaluation.SCORED, reward_hack=False, score__isnull=False)
    rows = (Evaluation.objects.filter(submission__agent_submission__in=[a.pk for a in agents]).order_by()
            .values("submission__agent_submission", "hardware__slug")
            .annotate(n=Count("*"), queued=Count("pk", filter=Q(state=Evaluation.QUEUED)),
                      finished=Count("pk", filter=Q(state__in=Evaluation.TERMINAL)),
                      scored=Count("pk", filter=counted & Q(score__gt=0)),  # a valid score: some passed
                      total=Sum("score", filter=counted)))
    by_agent: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_agent.setdefault(row["submission__agent_submission"], []).append(row)
    result = {}
    for agent in agents:
        here = sorted(by_agent.get(agent.pk, []), key=lambda row: row["hardware__slug"])
        size = max(agent.suite_size or 0, agent.solutions)
        result[agent.pk] = (_status(here), [
            Suite(hardware=row["hardware__slug"], status=_status([row]),
                  score=(row["total"] or 0.0) / size if size else 0.0, problems=size, scored=row["scored"])
            for row in here])
    return result


def _status(counts: list[dict[str, Any]]) -> str:
    """status_of, from the counts of summaries."""
    if all(row["finished"] == row["n"] for row in counts):
        return DONE
    if all(row["queued"] == row["n"] for row in counts):
        return QUEUED
    return RUNNING


@dataclass
class AgentEntry:
    agent: str
    owner_id: int
    user: str
    team: str
    agent_submission: int
    version: str
    model: str
    score: float
    submitted_at: datetime
    submissions: int
    rank: int = 0


def agent_board(hardware: Hardware) -> list[AgentEntry]:
    """Each (agent name, owner)'s best finished suite on the hardware, best first. One query: the
    agent submissions with an evaluation here, each with its number of solutions, of evaluations
    here not finished yet, and the sum of the scores that count (summed by the database: a board
    has thousands of evaluations behind it)."""
    here = Q(submissions__evaluations__hardware=hardware)
    unfinished = [state for state, _ in Evaluation.STATES if state not in Evaluation.TERMINAL]
    counted = here & Q(submissions__evaluations__state=Evaluation.SCORED,
                       submissions__evaluations__reward_hack=False,
                       submissions__evaluations__score__isnull=False)
    agents = (with_suite_size(AgentSubmission.objects.filter(mode=modes.RANKED))  # private runs: never
              .annotate(solutions=Count("submissions", distinct=True),
                        here=Count("submissions__evaluations", filter=here),
                        unfinished=Count("submissions__evaluations",
                                         filter=here & Q(submissions__evaluations__state__in=unfinished)),
                        total=Sum("submissions__evaluations__score", filter=counted))
              .filter(here__gt=0, unfinished=0)
              .select_related("owner__profile").order_by("created", "pk"))
    best: dict[tuple[str, int], AgentEntry] = {}
    for agent in agents:
        size = max(agent.suite_size or 0, agent.solutions)
        score = (agent.total or 0.0) / size if size else 0.0
        key = (agent.name, agent.owner_id)
        entry = best.get(key)
        if entry is None:
            profile = getattr(agent.owner, "profile", None)
            best[key] = AgentEntry(agent=agent.name, owner_id=agent.owner_id, user=agent.owner.get_username(),
                                   team=profile.team if profile else "", agent_submission=agent.pk,
                                   version=agent.version, model=agent.model, score=score,
                                   submitted_at=agent.created, submissions=1)
            continue
        entry.submissions += 1
        if score > entry.score:  # ties stay with the earlier upload (ordered by created)
            entry.agent_submission, entry.version, entry.model = agent.pk, agent.version, agent.model
            entry.score, entry.submitted_at = score, agent.created
    entries = sorted(best.values(), key=lambda e: (-e.score, e.submitted_at, e.agent_submission))
    for rank, entry in enumerate(entries, start=1):
        entry.rank = rank
    return entries
