"""The read model of every board, each in a fixed number of queries whatever its number of rows.

- problem x hardware: the precomputed entries (rankings.py) with their best evaluation's aggregates;
- category x hardware: per participant, the mean over the category's current problems of their best
  score (docs/scoring.md, "Boards");
- agents x hardware: leaderboard/agent_boards.py.

Rows come in the stable rank order; sort_rows reorders them by any column of the board.

A problem x hardware board's rows (what its entries and their evaluations hold, without the names)
are kept in the cache under the board's version (board_versions): a query over the board's entries
that changes whenever an entry is saved, made or deleted, so a kept copy is never out of date; each
row's status (why it has no rank, or that it is disputed: evaluator.entry_status) is kept with it. Names
and teams are read fresh every time (one query by user id), and so is everything on a category
board that is not a problem board's row.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, F, Max, QuerySet, Sum, Window
from django.db.models.functions import RowNumber

from evaluator import entry_status
from evaluator.confirmations import label
from evaluator.entry_status import EntryStatus
from evaluator.harness.problem import TASK_TYPES
from evaluator.models import Evaluation
from evaluator.rankings import RANK_ORDER
from evaluator.scoring.hardware import HARDWARE
from evaluator.scoring.uncertainty import indistinguishable
from submissions.models import AgentSubmission

from .models import Category, Hardware, LeaderboardEntry, Problem

log = logging.getLogger(__name__)
ROWS_SECONDS = 300  # a board's rows kept under one version (a newer version is another key)
CONFIRMED, DISPUTED = Evaluation.CONFIRMED, Evaluation.DISPUTED

__all__ = ["TASK_TYPES", "UnknownSort", "category_board", "overview", "problem_board",
           "sort_rows"]


@dataclass(frozen=True)
class Column:
    key: str  # the row attribute, the CSV/JSON field and the ?sort= value
    label: str
    kind: str = "text"  # text, int, score, ratio, speedup, time
    help: str = ""

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


RANK = Column("rank", "#", "int", "place in the stable order: correct on every workload first, then "
                                   "score, then the earlier submission; a range where 95% intervals "
                                   "overlap (tied)")
CORRECT = Column("correct", "correct", "text", "workloads passed of those run, visible and hidden: an entry "
                                               "that failed any ranks below every entry that failed none")
USER = Column("user", "participant")
TEAM = Column("team", "team")
FIGURES = (
    Column("visible_score", "visible", "score", "score over the visible workloads"),
    Column("hidden_score", "hidden", "score", "score over the hidden workloads"),
    Column("generalization_gap", "gap", "score", "visible score minus hidden score"),
    Column("conditional_correctness", "cond. correct", "ratio",
           "share of hidden workloads passed, when every visible one passed"),
    Column("geomean_speedup", "speedup", "speedup", "geometric-mean speedup over the reference"),
)
SUBMISSIONS = Column("submissions", "submissions", "int")
LAST_IMPROVED = Column("last_improved", "last improved", "time", "when the best result was scored")

HARNESS = Column("harness", "harness", "text", "the harness version that measured the best evaluation "
                                               "(manage.py rescore measures leaders again after a change)")
CONFIRMATION = Column("confirmation", "confirmed", "text", "confirmed: a second run of a top-3 entry agreed "
                      "within the noise; disputed: it did not, and the entry is under review; provisional: "
                      "not confirmed (yet)")
STATUS = Column("status", "status", "text", "why a participant has no rank (a reward hack, disqualified by "
                "review, no workload passed, scored 0), or that a disputed entry is under review")
PROBLEM_COLUMNS = (RANK, USER, TEAM, Column("score", "score", "score", "mean over all workloads"), CORRECT,
                   *FIGURES, SUBMISSIONS, LAST_IMPROVED, HARNESS, CONFIRMATION, STATUS)
CATEGORY_COLUMNS = (RANK, USER, TEAM,
                    Column("score", "score", "score", "mean over the category's problems, missing ones 0"),
                    Column("solved", "solved", "int", "problems with a valid score"), *FIGURES,
                    SUBMISSIONS, LAST_IMPROVED,
                    Column("confirmation", "confirmed", "text", "of the solved problems' best entries, how "
                           "many a second run confirmed, and how many it disputed (under review)"))


class UnknownSort(ValueError):
    """A ?sort= value that names no column of the board; the message lists the ones there are."""


@dataclass
class ProblemRow:
    rank: int | None
    user_id: int
    user: str
    team: str
    score: float | None
    visible_score: float | None
    hidden_score: float | None
    generalization_gap: float | None
    conditional_correctness: float | None
    geomean_speedup: float | None
    submissions: int
    submitted_at: datetime
    last_improved: datetime | None
    submission_id: int | None
    failed: int = 0  # workloads the best evaluation failed, visible and hidden
    workloads: int = 0  # of those it ran
    score_ci95: float | None = None  # the 95% half-width of the score (docs/scoring.md, "Uncertainty")
    harness: str | None = None  # the harness version that measured the best evaluation
    confirmation: str | None = None  # confirmed, disputed or provisional (evaluator.confirmations.label)
    row_status: EntryStatus | None = None  # why it has no rank, or that it is disputed (entry_status)
    band: str | None = None  # "2–4": the ranks it shares with the rows its interval overlaps

    @property
    def status(self) -> str | None:
        return self.row_status.text if self.row_status is not None else None

    @property
    def correct(self) -> str | None:
        """What the board says of the best evaluation's correctness; None without a score."""
        if self.score is None or not self.workloads:
            return None
        if self.failed:
            return f"incorrect on {self.failed} of {self.workloads} workloads"
        return f"all {self.workloads}"


@dataclass
class CategoryRow:
    rank: int | None
    user_id: int
    user: str
    team: str
    score: float | None
    solved: int
    visible_score: float | None
    hidden_score: float | None
    generalization_gap: float | None
    conditional_correctness: float | None
    geomean_speedup: float | None
    submissions: int
    submitted_at: datetime  # the tie-break: when the last of the best results counted came in
    last_improved: datetime | None
    confirmed: int = 0  # solved problems whose best entry a second run confirmed
    disputed: int = 0  # and those it disputed

    @property
    def confirmation(self) -> str | None:
        """"3 of 5 confirmed, 1 disputed": the solved problems' entries as their boards label them."""
        if not self.solved:
            return None
        return f"{self.confirmed} of {self.solved} confirmed" + (f", {self.disputed} disputed"
                                                                 if self.disputed else "")


@dataclass
class ProblemBoard:
    problem: Problem
    hardware: Hardware
    rows: list[ProblemRow]
    columns: tuple[Column, ...] = PROBLEM_COLUMNS


@dataclass
class CategoryBoard:
    category: Category
    hardware: Hardware
    task_type: str | None
    problems: list[Problem]
    rows: list[CategoryRow]
    columns: tuple[Column, ...] = CATEGORY_COLUMNS


_ENTRY_FIELDS = ("problem_id", "user_id", "score", "submissions", "submitted_at",
                 "evaluation__submission_id", "evaluation__finished_at", "evaluation__aggregates", "failed",
                 "workloads", "evaluation__harness_version", "evaluation__confirmation")


def problem_board(problem: Problem, hardware: Hardware) -> ProblemBoard:
    """Every participant of the board, best first, those without a valid score last. Two queries
    when the board's rows are kept (board_versions, the names), four when they are made."""
    rows = board_rows([problem.pk], hardware)[problem.pk]
    _number(rows)
    spec = HARDWARE.get(hardware.slug)
    _band(rows, spec.score_noise if spec is not None else 0.0)
    return ProblemBoard(problem, hardware, rows)


def board_versions(problem_ids: Sequence[int], hardware: Hardware) -> dict[int, str]:
    """The version of each problem x hardware board with entries: it changes whenever one of its
    entries is made, deleted or saved (rankings.update_entry counts one more submission; any save
    moves `updated`, and so does a confirmation's verdict on an entry's evaluation:
    evaluator.confirmations), so whatever is kept under it is the board as it is. One query, its
    rows found by the board_ranking index."""
    found = (LeaderboardEntry.objects.filter(problem__in=list(problem_ids), hardware=hardware).order_by()
             .values("problem_id").annotate(n=Count("*"), submissions=Sum("submissions"),
                                            evaluations=Sum("evaluation_id"), last=Max("updated")))
    return {row["problem_id"]: f"{row['n']}:{row['submissions']}:{row['evaluations']}:"
                               f"{row['last'].isoformat()}" for row in found}


def board_rows(problem_ids: Sequence[int], hardware: Hardware) -> dict[int, list[ProblemRow]]:
    """Each problem's board on the hardware: its rows in the stable rank order, unnumbered, with the
    names of now. Kept boards cost two queries (versions, names); those not kept one more for all (the
    entries), and two where some have no valid score (why: entry_status.excluded)."""
    versions = board_versions(problem_ids, hardware)
    keys = {pk: f"board-rows:v6:{pk}:{hardware.pk}:{version}" for pk, version in versions.items()}
    kept = _cached_many(list(keys.values()))
    rows: dict[int, list[ProblemRow]] = {pk: [] for pk in problem_ids}
    missing = []
    for pk, key in keys.items():
        if key in kept:
            rows[pk] = [ProblemRow(None, *values) for values in kept[key]]
        else:
            missing.append(pk)
    if missing:
        made: dict[int, list[tuple[Any, ...]]] = {pk: [] for pk in missing}
        entries = list(LeaderboardEntry.objects.filter(problem__in=missing, hardware=hardware)
                       .order_by("problem_id", *RANK_ORDER).values(*_ENTRY_FIELDS))
        unscored = [(e["problem_id"], e["user_id"]) for e in entries if e["score"] is None]
        excluded = entry_status.excluded(unscored, hardware.pk)
        for entry in entries:
            made[entry["problem_id"]].append(_row_values(entry, excluded))
        _keep_many({keys[pk]: values for pk, values in made.items()})
        for pk, values in made.items():
            rows[pk] = [ProblemRow(None, *row) for row in values]
    _name([row for board in rows.values() for row in board])
    return rows


def _row_values(entry: dict[str, Any], excluded: dict[tuple[int, int], EntryStatus]) -> tuple[Any, ...]:
    """A ProblemRow's fields after the rank (names left blank: _name fills them), as kept."""
    scored = entry["score"] is not None
    aggregates = entry["evaluation__aggregates"] or {}
    submission = entry["evaluation__submission_id"]
    why: EntryStatus | None
    if not scored:
        why = excluded.get((entry["problem_id"], entry["user_id"]), entry_status.UNEXPLAINED)
    else:
        why = entry_status.disputed(submission) if entry["evaluation__confirmation"] == DISPUTED else None
    return (entry["user_id"], "", "", entry["score"], *(_figure(aggregates.get(c.key)) for c in FIGURES),
            entry["submissions"], entry["submitted_at"],
            entry["evaluation__finished_at"] if scored else None, submission,
            entry["failed"], entry["workloads"], _figure(aggregates.get("score_ci95")),
            (entry["evaluation__harness_version"] or "unrecorded") if scored else None,
            label(entry["evaluation__confirmation"]) if scored else None, why)


def _name(rows: Sequence[ProblemRow]) -> None:
    """Each row's participant name and team, as they are now: one query."""
    if not rows:
        return
    names = {pk: (username, team or "") for pk, username, team in get_user_model().objects
             .filter(pk__in={row.user_id for row in rows}).values_list("pk", "username", "profile__team")}
    for row in rows:  # a participant deleted since the rows were read: no name (their rows go next)
        row.user, row.team = names.get(row.user_id, ("", ""))


def _cached_many(keys: list[str]) -> dict[str, Any]:
    try:
        return cache.get_many(keys) if keys else {}
    except Exception:  # a cache that does not answer: the rows are read from the entries
        log.warning("board cache unavailable", exc_info=True)
        return {}


def _keep_many(values: dict[str, Any]) -> None:
    try:
        cache.set_many(values, ROWS_SECONDS)
    except Exception:
        log.warning("board cache unavailable", exc_info=True)


def current_problems(category: Category, task_type: str | None = None) -> list[Problem]:
    problems = Problem.objects.filter(category=category, is_current=True).order_by("name")
    return list(problems.filter(task_type=task_type) if task_type else problems)


def category_board(category: Category, hardware: Hardware, task_type: str | None = None,
                   problems: list[Problem] | None = None) -> CategoryBoard:
    """Each participant with an entry on one of the category's current problems (of the task type
    when given) on the hardware; the score is the mean over those problems, a missing one counting
    0. Problem boards' rows as board_rows reads them, and one query for current_problems when not
    given its answer."""
    problems = current_problems(category, task_type) if problems is None else problems
    by_user: dict[int, list[ProblemRow]] = {}
    for board in board_rows([p.pk for p in problems], hardware).values():
        for row in board:
            by_user.setdefault(row.user_id, []).append(row)
    rows = [_category_row(best, len(problems)) for best in by_user.values()]
    rows.sort(key=_category_order)
    _number(rows)
    return CategoryBoard(category, hardware, task_type, problems, rows)


def _category_row(best: list[ProblemRow], problems: int) -> CategoryRow:
    valid = [row for row in best if row.score is not None]
    visible = _mean_of(valid, "visible_score", problems)
    hidden = _mean_of(valid, "hidden_score", problems)
    conditional = [row.conditional_correctness for row in valid if row.conditional_correctness is not None]
    labels = [row.confirmation for row in valid]
    speedups = [row.geomean_speedup for row in valid if row.geomean_speedup]
    return CategoryRow(
        rank=None, user_id=best[0].user_id, user=best[0].user, team=best[0].team,
        score=_mean_of(valid, "score", problems) if valid else None, solved=len(valid),
        visible_score=visible if valid else None, hidden_score=hidden if valid else None,
        generalization_gap=visible - hidden if valid else None,
        conditional_correctness=math.fsum(conditional) / len(conditional) if conditional else None,
        geomean_speedup=(math.exp(math.fsum(math.log(s) for s in speedups) / len(speedups))
                         if speedups else None),
        submissions=sum(row.submissions for row in best),
        submitted_at=max(row.submitted_at for row in valid) if valid else min(r.submitted_at for r in best),
        last_improved=max((row.last_improved for row in valid if row.last_improved), default=None),
        confirmed=labels.count(CONFIRMED), disputed=labels.count(DISPUTED))


def _mean_of(rows: Sequence[ProblemRow], attribute: str, problems: int) -> float:
    """The mean over `problems` problems of a figure of the rows; missing problems and figures count 0."""
    return math.fsum(getattr(row, attribute) or 0.0 for row in rows) / problems


def _category_order(row: CategoryRow) -> tuple[Any, ...]:
    return (row.score is None, -(row.score or 0.0), row.submitted_at, row.user_id)


def _number(rows: Iterable[ProblemRow | CategoryRow]) -> None:
    """Ranks 1, 2, ... in the given order; rows without a score get none."""
    rank = 0
    for row in rows:
        if row.score is not None:
            rank += 1
            row.rank = rank


def _band(rows: Sequence[ProblemRow], noise: float) -> None:
    """Ranked rows in a run whose 95% intervals overlap, each with the next, or whose scores are
    closer than the hardware's run-to-run noise (a share of the higher score), are tied: each gets
    the run's ranks as its band ("2–4"). Correct and incorrect entries never share a band."""
    ranked = [row for row in rows if row.rank is not None]
    runs: list[list[ProblemRow]] = []
    for row in ranked:
        if runs and _overlap(runs[-1][-1], row, noise):
            runs[-1].append(row)
        else:
            runs.append([row])
    for run in runs:
        if len(run) > 1:
            for row in run:
                row.band = f"{run[0].rank}–{run[-1].rank}"


def _overlap(above: ProblemRow, below: ProblemRow, noise: float) -> bool:
    if (above.failed > 0) != (below.failed > 0) or above.score is None or below.score is None:
        return False
    return indistinguishable(above.score, above.score_ci95, below.score, below.score_ci95, noise)


def _figure(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def sort_rows(rows: Sequence[Any], sort: str, columns: Sequence[Column]) -> list[Any]:
    """The rows ordered by one column (`-key`: descending), ties and empty cells in rank order, empty
    cells last either way."""
    key = sort.removeprefix("-")
    if key not in {c.key for c in columns}:
        raise UnknownSort(f"cannot sort by {sort!r}; sort by one of: "
                          + ", ".join(c.key for c in columns) + " (prefix - for descending)")
    present = [row for row in rows if getattr(row, key) is not None]
    missing = [row for row in rows if getattr(row, key) is None]
    present.sort(key=lambda row: _sortable(getattr(row, key)), reverse=sort.startswith("-"))
    return present + missing


def _sortable(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


@dataclass
class Leader:
    user: str
    team: str
    score: float


@dataclass
class Overview:
    """The home page's figures: each category x hardware board's leader, and the counts."""

    categories: list[Category]
    hardware: list[Hardware]
    leaders: dict[tuple[int, int], Leader] = field(default_factory=dict)
    problems: int = 0
    participants: int = 0
    agents: int = 0

    def leader(self, category: Category, hardware: Hardware) -> Leader | None:
        return self.leaders.get((category.pk, hardware.pk))


def overview(task_type: str | None = None) -> Overview:
    """Leaders of every category board at once (the database ranks them), and the counts: six
    queries."""
    problems = Problem.objects.filter(is_current=True)
    if task_type:
        problems = problems.filter(task_type=task_type)
    ids: dict[int, list[int]] = {}
    for category, problem in problems.order_by("category_id", "pk").values_list("category_id", "pk"):
        ids.setdefault(category, []).append(problem)
    sizes = {category: len(members) for category, members in ids.items()}
    categories = list(Category.objects.filter(pk__in=list(sizes)))
    leaders, participants, agents = _leaders_and_counts(problems, sizes)
    used = {hw for _, hw in leaders}
    hardware = [hw for hw in Hardware.objects.all() if hw.active or hw.pk in used]
    return Overview(categories, hardware, leaders, sum(sizes.values()), participants, agents)


def _leaders_and_counts(problems: QuerySet[Problem],
                        sizes: dict[int, int]) -> tuple[dict[tuple[int, int], Leader], int, int]:
    board_key = ("problem__category_id", "hardware_id")
    totals = (LeaderboardEntry.objects.filter(problem__in=problems, score__isnull=False)
              .values(*board_key, "user_id", "user__username", "user__profile__team")
              .annotate(total=Sum("score"), last=Max("submitted_at"))
              .annotate(place=Window(RowNumber(), partition_by=[F(k) for k in board_key],
                                     order_by=[F("total").desc(), F("last").asc(), F("user_id").asc()]))
              .filter(place=1))
    leaders = {(row["problem__category_id"], row["hardware_id"]): Leader(
        row["user__username"], row["user__profile__team"] or "",
        row["total"] / sizes[row["problem__category_id"]]) for row in totals}
    participants = (LeaderboardEntry.objects.filter(problem__is_current=True)
                    .values("user_id").distinct().count())
    agents = AgentSubmission.objects.values("owner_id", "name").distinct().count()
    return leaders, participants, agents
