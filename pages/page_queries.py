"""The reads behind the public pages (problems, participants, agents, hardware), each in a fixed
number of queries whatever the number of rows. Boards themselves come from leaderboard.boards."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Count,
    Exists,
    IntegerField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from evaluator import hidden_results, modes
from evaluator.counting import counted
from evaluator.models import Evaluation
from evaluator.rankings import RANK_ORDER, STANDING, on_boards
from evaluator.scoring import sol
from evaluator.scoring.hardware import BANDWIDTH_KEY, COMPUTE_CLASSES, HARDWARE, HardwareSpec, timing_note
from evaluator.scoring.sol import WorkloadWork
from leaderboard import boards
from leaderboard.models import Hardware, LeaderboardEntry, Problem, ScoreRecord, Workload
from leaderboard.problems import sol_bounds, visible_work
from submissions import agent_results, agent_visibility, suites
from submissions.models import AgentSubmission, Submission
from submissions.visibility import viewable_sources

from . import charts


def _count(queryset: QuerySet[Any], by: str) -> Subquery:
    """A correlated COUNT(*) of `queryset`, for annotating each outer row (0 when none)."""
    return Coalesce(Subquery(queryset.order_by().values(by).annotate(n=Count("*")).values("n")[:1],
                             output_field=IntegerField()), Value(0))


# Problems


def current_problems(category: str | None = None, task_type: str | None = None) -> QuerySet[Problem]:
    """Current problem versions with their visible workload and participant counts."""
    workloads = Workload.objects.filter(problem=OuterRef("pk"), visibility=Workload.VISIBLE, smoke=False)
    entries = LeaderboardEntry.objects.filter(problem=OuterRef("pk"))
    problems = (Problem.objects.filter(is_current=True).select_related("category")
                .annotate(visible_workloads=_count(workloads, "problem"),
                          entries_count=_count(entries, "problem"))
                .order_by("category__slug", "name"))
    if category:
        problems = problems.filter(category__slug=category)
    if task_type:
        problems = problems.filter(task_type=task_type)
    return problems


def board_hardware(problem: Problem) -> list[Hardware]:
    """The tabs of a problem page: active hardware and any other with entries on this problem, by
    slug; each with `entries_count` on this problem."""
    counts = dict(LeaderboardEntry.objects.filter(problem=problem).order_by()
                  .values_list("hardware").annotate(n=Count("*")))
    tabs = []
    for hw in Hardware.objects.order_by("slug"):
        hw.entries_count = counts.get(hw.pk, 0)
        if hw.active or hw.entries_count:
            tabs.append(hw)
    return tabs


def default_hardware(hardware: list[Hardware]) -> Hardware | None:
    """The busiest board first; without entries anywhere, the first GPU (the cpu board is a test bed)."""
    if not hardware:
        return None
    return max(hardware, key=lambda hw: (hw.entries_count, hw.slug != "cpu", -hardware.index(hw)))


def score_history(problem: Problem, hardware: Hardware) -> list[charts.Record]:
    """Every time the board's best valid score went up, oldest first: from the board's kept records
    (leaderboard.models.ScoreRecord, a few rows, ranked runs only), not from every evaluation of the
    board; each read with its evaluation as it is now, so one that stopped counting is left out at
    once."""
    counting = {"evaluation__state": Evaluation.SCORED, "evaluation__reward_hack": False,
                "evaluation__score__gt": 0, "evaluation__finished_at__isnull": False,
                "evaluation__submission__mode": modes.RANKED}
    kept = (ScoreRecord.objects.filter(problem=problem, hardware=hardware, **counting)
            .order_by("evaluation__finished_at", "evaluation")
            .values_list("evaluation__finished_at", "evaluation__score",
                         "evaluation__submission__owner__username"))
    return charts.records(list(kept))


@dataclass(frozen=True)
class BoardTop:
    """What a problem page shows of one board: its first rows, its counts, its best score over time."""

    rows: list[boards.ProblemRow]
    ranked: int
    participants: int
    history: list[charts.Record]


def board_top(problem: Problem, hardware: Hardware, size: int) -> BoardTop:
    """The board's first `size` rows (kept under the board's version, leaderboard.boards), how many
    are ranked and listed, and score_history."""
    rows = boards.problem_board(problem, hardware).rows
    return BoardTop(rows[:size], sum(row.score is not None for row in rows), len(rows),
                    score_history(problem, hardware))


@dataclass(frozen=True)
class WorkloadBounds:
    workload: Workload
    work: WorkloadWork
    bounds: list[float | None]  # ms, one per hardware column


def workload_bounds(problem: Problem, hardware: list[Hardware]) -> list[WorkloadBounds]:
    """The visible workloads with their SOL bound on each hardware (None where the hardware table
    has no entry for a slug)."""
    rows = []
    for workload, work in visible_work(problem):
        bounds = sol_bounds(work, hardware)
        rows.append(WorkloadBounds(workload, work, [bounds.get(hw.slug) for hw in hardware]))
    return rows


@dataclass(frozen=True)
class BoundSource:
    """Where a problem's SOL bounds come from, for the line above its workloads."""

    flops_from: str  # sol.FROM_DEFINITION, FROM_REFERENCE or NOT_COUNTED
    bytes_from: str  # sol.FROM_DEFINITION or FROM_TENSORS
    not_counted: int  # workloads whose FLOPs could not be counted from the reference
    note: str  # why (the first such workload's reason)


def bound_source(rows: list[WorkloadBounds]) -> BoundSource | None:
    if not rows:
        return None
    uncounted = [row.work for row in rows if row.work.flops_from == sol.NOT_COUNTED]
    counted = len(uncounted) < len(rows)
    flops_from = rows[0].work.flops_from if not uncounted or not counted else sol.FROM_REFERENCE
    return BoundSource(flops_from, rows[0].work.bytes_from, len(uncounted),
                       uncounted[0].note if uncounted else "")


# Participants and agents


def entries_of(user: AbstractBaseUser) -> list[LeaderboardEntry]:
    """The user's entry on each board with its `rank` (None without a valid score) and `ranked`
    (how many on that board have a valid score); current problems first."""
    board = {"problem": OuterRef("problem"), "hardware": OuterRef("hardware")}
    ranked = LeaderboardEntry.objects.filter(**board, score__isnull=False)
    mine = {"standing": OuterRef("standing"), "score": OuterRef("score")}
    ahead = ranked.annotate(standing=STANDING).filter(
        Q(standing__lt=OuterRef("standing")) | Q(standing=OuterRef("standing"), score__gt=OuterRef("score"))
        | Q(**mine, submitted_at__lt=OuterRef("submitted_at"))
        | Q(**mine, submitted_at=OuterRef("submitted_at"), user_id__lt=OuterRef("user_id")))
    return list(LeaderboardEntry.objects.filter(user=user).annotate(standing=STANDING)
                .select_related("problem__category", "hardware", "evaluation")
                .only("problem__name", "problem__slug", "problem__version", "problem__is_current",
                      "problem__category__slug", "hardware__slug", "evaluation__submission", "score",
                      "submitted_at", "submissions", "user")
                .annotate(ahead=_count(ahead, "problem"), ranked=_count(ranked, "problem"))
                .order_by("-problem__is_current", "problem__name", "-problem__version", "hardware__slug"))


def submissions_of(user: AbstractBaseUser) -> QuerySet[Submission]:
    """The user's ranked submissions (test and benchmark runs are private, and so are the solutions of
    an agent upload not published yet), newest first, with their evaluations (prefetched by
    hardware); not their sources, problem definitions, agent logs or reports."""
    evaluations = (counted().select_related("hardware").order_by("hardware__slug")
                   .only("submission", "hardware__slug", "state", "score", "reward_hack", "aggregates")
                   .prefetch_related(hidden_results.verdicts()))
    return (Submission.objects.filter(on_boards(), owner=user)
            .select_related("problem", "agent_submission")
            .only("owner", "language", "created", "problem__name", "problem__version",
                  "agent_submission__name")
            .prefetch_related(Prefetch("evaluations", queryset=evaluations)).order_by("-created", "-pk"))


def agents_of(user: AbstractBaseUser) -> list[dict[str, Any]]:
    """The names the user's agents were uploaded under, with upload counts and the last upload."""
    return list(AgentSubmission.objects.filter(agent_visibility.listed(), owner=user).values("name")
                .annotate(uploads=Count("pk"), last=Max("created")).order_by("-last", "name"))


@dataclass
class Upload:
    agent: AgentSubmission
    results: agent_results.UploadResults
    logs_visible: bool = False

    @property
    def suites(self) -> list[agent_results.HardwareResults]:
        return self.results.hardware

    @property
    def status(self) -> str:
        """Over every hardware: queued while nothing started, done once everything finished."""
        states = {here.status for here in self.suites}
        if states <= {suites.DONE}:
            return suites.DONE
        return suites.QUEUED if states == {suites.QUEUED} else suites.RUNNING


@dataclass(frozen=True)
class BestSuite:
    hardware: str
    score: float
    version: str
    model: str
    agent_submission: int
    uploaded: datetime


def agent_uploads(owner: AbstractBaseUser, name: str, viewer: AbstractBaseUser | AnonymousUser,
                  suite: agent_results.Suite | None = None) -> list[Upload]:
    """Every upload of one agent (owner and name) that its pages show `viewer` (the listed ones, and
    the owner's private ones to the owner and the admins: agent_visibility.on_agent_pages), newest
    first, with its results on each hardware (agent_results: a few queries however many uploads and
    problems) and whether `viewer` may read every source of it (its logs can quote them)."""
    agents = list(AgentSubmission.objects.filter(agent_visibility.on_agent_pages(viewer), owner=owner,
                                                 name=name)
                  .select_related("owner")
                  .annotate(solutions=Count("submissions"),
                            viewable=Count("submissions", filter=viewable_sources(viewer, "submissions__")))
                  .order_by("-created", "-pk"))
    found = agent_results.results(agents, suite=suite)
    return [Upload(agent, found[agent.pk], logs_visible=agent.viewable == agent.solutions)
            for agent in agents]


def best_suites(uploads: list[Upload]) -> list[BestSuite]:
    """The best finished suite on each hardware, as the agent board counts it (ties to the earlier;
    private uploads, on no board, left out)."""
    best: dict[str, BestSuite] = {}
    for upload in sorted(uploads, key=lambda u: (u.agent.created, u.agent.pk)):
        if upload.agent.private:
            continue
        for here in upload.suites:
            if here.status != suites.DONE:
                continue
            held = best.get(here.hardware)
            if held is None or here.suite.score > held.score:
                best[here.hardware] = BestSuite(here.hardware, here.suite.score, upload.agent.version,
                                                upload.agent.model, upload.agent.pk, upload.agent.created)
    return [best[slug] for slug in sorted(best)]


# Hardware


@dataclass(frozen=True)
class Peak:
    name: str  # a compute class or "memory_bandwidth"
    unit: str
    datasheet: float
    calibrated: float | None

    @property
    def ratio(self) -> float | None:
        return self.calibrated / self.datasheet if self.calibrated and self.datasheet else None


def peaks(hardware: Hardware) -> list[Peak]:
    """Datasheet and calibrated figures side by side: bandwidth in TB/s, compute in TFLOP/s (TOP/s
    for int8)."""
    calibrated = hardware.calibrated or {}
    tera = 1e12
    rows = [Peak(BANDWIDTH_KEY, "TB/s", hardware.memory_bandwidth / tera,
                 calibrated[BANDWIDTH_KEY] / tera if BANDWIDTH_KEY in calibrated else None)]
    for name in COMPUTE_CLASSES:
        datasheet = (hardware.peak_flops or {}).get(name)
        if datasheet is None:
            continue
        rows.append(Peak(name, "TOP/s" if name == "int8" else "TFLOP/s", datasheet / tera,
                         calibrated[name] / tera if name in calibrated else None))
    return rows


def spec_of(hardware: Hardware) -> HardwareSpec | None:
    return HARDWARE.get(hardware.slug)


def timing_notes(slugs: Iterable[str]) -> list[tuple[str, str]]:
    """What the times of each hardware shown are not (the CPU's: no GPU timing), once each, for
    pages/_timing_notes.html."""
    return [(slug, note) for slug in sorted(set(slugs)) if (note := timing_note(slug))]


def evaluation_counts(hardware: Hardware) -> dict[str, int]:
    """How many evaluations on the hardware are in each state (every state listed): the submissions'
    evaluations that count (evaluator.counting), not the platform's runs again."""
    counts = dict(counted().filter(hardware=hardware).order_by()
                  .values_list("state").annotate(n=Count("*")))
    return {state: counts.get(state, 0) for state, _ in Evaluation.STATES}


def problems_on(hardware: Hardware) -> QuerySet[Problem]:
    """Current problems with at least one entry on the hardware, with the best score and entry count
    (each from the board_ranking index; the definitions are not read)."""
    entries = LeaderboardEntry.objects.filter(problem=OuterRef("pk"), hardware=hardware)
    best = entries.filter(score__isnull=False).order_by(*RANK_ORDER).values("score")[:1]
    return (Problem.objects.filter(Exists(entries), is_current=True).defer("definition", "description")
            .annotate(entries_count=_count(entries, "problem"), best=Subquery(best))
            .select_related("category").order_by("name"))
