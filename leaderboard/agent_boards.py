"""The agent board of a hardware: one row per upload (agent, version, model) whose evaluations there
have all finished, ranked correct first as the problem boards are (evaluator.scoring.order), then by
its suite score, with the generalization figures of evaluator.scoring.suite (docs/scoring.md,
"Agent suites"); filtered by task type, the same over that type's problems. A fixed number of
queries whatever the number of uploads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, Q

from evaluator.counting import counting
from evaluator.models import Evaluation
from evaluator.scoring import frontier as scoring_frontier
from evaluator.scoring.suite import SuiteFigures
from submissions import agent_results, agent_visibility
from submissions.models import AgentSubmission

from .boards import RANK, TEAM, Column
from .models import Hardware

GENERALIZATION = (
    Column("visible_score", "visible", "score", "mean over the suite of the visible scores"),
    Column("hidden_score", "hidden", "score", "mean over the suite of the hidden scores"),
    Column("generalization_gap", "gap", "score",
           "visible minus hidden score: correctness and speed together"),
    Column("correctness_gap", "correctness gap", "score",
           "share of visible workloads passed minus share of hidden ones passed (mean over solved problems)"),
    Column("speed_gap", "speed gap", "score",
           "score of passed visible workloads minus that of passed hidden ones: slower, not wrong"),
    Column("conditional_correctness", "cond. correct", "ratio",
           "share of hidden workloads passed where every visible one passed (mean over solved problems)"),
)
SOLVED = (
    Column("solved", "solved", "int", "problems with a valid score"),
    Column("solved_visible", "all visible", "int", "problems that passed every visible workload"),
    Column("solved_all", "all workloads", "int", "problems that passed every workload, visible and hidden"),
)
AGENT_COLUMNS = (RANK, Column("agent", "agent"), Column("version", "version"), Column("model", "model"),
                 Column("user", "owner"), TEAM,
                 Column("score", "suite score", "score", "mean over every current problem, left-out ones 0"),
                 *SOLVED, *GENERALIZATION,
                 Column("cost_usd", "cost (USD)", "score", "what the run cost, as its manifest says"),
                 Column("tokens", "tokens", "int", "the tokens the run used, as its manifest says (input + "
                                                   "output where only those are given)"),
                 Column("submitted_at", "uploaded", "time", "when the upload came in"))


@dataclass
class AgentRow:
    """One upload on the board; the figures are its suite's, or its task type's when filtered."""

    upload: AgentSubmission
    user: str
    team: str
    figures: SuiteFigures
    results: agent_results.HardwareResults
    rank: int | None = None

    @property
    def agent(self) -> str:
        return self.upload.name

    @property
    def version(self) -> str:
        return self.upload.version

    @property
    def model(self) -> str:
        return self.upload.model

    @property
    def agent_submission(self) -> int:
        return self.upload.pk

    @property
    def submitted_at(self) -> datetime:
        return self.upload.created

    @property
    def cost_usd(self) -> float | None:
        return self.upload.cost_usd

    @property
    def tokens(self) -> int | None:
        upload = self.upload
        if upload.tokens is not None or (upload.tokens_input is None and upload.tokens_output is None):
            return upload.tokens
        return (upload.tokens_input or 0) + (upload.tokens_output or 0)

    def __getattr__(self, name: str) -> Any:  # score, solved, visible_score, ...: the figures'
        if name in SuiteFigures.__dataclass_fields__:
            return getattr(self.figures, name)
        raise AttributeError(name)


@dataclass
class AgentBoard:
    hardware: Hardware
    task_type: str | None
    suite: agent_results.Suite
    rows: list[AgentRow] = field(default_factory=list)
    columns: tuple[Column, ...] = AGENT_COLUMNS


def agent_board(hardware: Hardware, task_type: str | None = None) -> AgentBoard:
    """Every listed upload whose evaluations on the hardware have all finished (those with a
    solution of the task type, when given), correct first as on the problem boards (an upload with a
    problem that failed some workload below every one whose problems passed them all), then best
    suite score; ties go to the earlier upload."""
    uploads = finished_uploads(hardware)
    suite = agent_results.current_suite()
    found = agent_results.results(uploads, hardware, suite)
    board = AgentBoard(hardware, task_type, suite)
    for upload in uploads:
        here = found[upload.pk].on(hardware.slug)
        if here is None:
            continue
        figures = here.task_types.get(task_type) if task_type else here.suite
        if figures is None or not figures.attempted:
            continue
        profile = getattr(upload.owner, "profile", None)
        board.rows.append(AgentRow(upload, upload.owner.get_username(), profile.team if profile else "",
                                   figures, here))
    board.rows.sort(key=lambda row: row.figures.rank_key(row.submitted_at, row.agent_submission))
    for rank, row in enumerate(board.rows, start=1):
        row.rank = rank
    return board


def finished_uploads(hardware: Hardware) -> list[AgentSubmission]:
    """The listed uploads with an evaluation that counts on the hardware and none unfinished there."""
    here = Q(submissions__evaluations__hardware=hardware) & counting("submissions__evaluations__")
    unfinished = here & Q(submissions__evaluations__state__in=Evaluation.PENDING)
    return list(AgentSubmission.objects.filter(agent_visibility.listed())
                .annotate(here=Count("submissions__evaluations", filter=here),
                          unfinished=Count("submissions__evaluations", filter=unfinished))
                .filter(here__gt=0, unfinished=0).select_related("owner__profile")
                .defer("logs", "description").order_by("created", "pk"))


@dataclass
class CostFrontier:
    """The board's uploads against their cost (evaluator.scoring.frontier): `frontier` cheapest first;
    `dominated`, the others with a cost, and `no_cost`, those whose manifest gives none (not
    compared), in rank order."""

    board: AgentBoard
    frontier: list[AgentRow]
    dominated: list[AgentRow]
    no_cost: list[AgentRow]

    @property
    def costed(self) -> list[AgentRow]:
        """Every upload with a cost, in rank order."""
        return [row for row in self.board.rows if row.cost_usd is not None]

    def on_frontier(self, row: AgentRow) -> bool:
        return any(row.agent_submission == kept.agent_submission for kept in self.frontier)


def cost_frontier(hardware: Hardware) -> CostFrontier:
    """The agent board of the hardware (every task type) with its score-versus-cost frontier."""
    board = agent_board(hardware)
    frontier = scoring_frontier.cost_frontier(board.rows, lambda row: row.score, lambda row: row.cost_usd)
    kept = {row.agent_submission for row in frontier}
    costed = [row for row in board.rows if row.cost_usd is not None]
    return CostFrontier(board, frontier, [row for row in costed if row.agent_submission not in kept],
                        [row for row in board.rows if row.cost_usd is None])
