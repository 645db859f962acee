"""A board's rows are kept under its version (leaderboard.boards.board_rows): what every board reads
equals the entries read afresh (the query the boards made before), after a new scored evaluation, a
reward hack found later, a deleted entry, a renamed participant or team."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.cache import cache

from accounts.models import Profile
from evaluator import services
from evaluator.rankings import RANK_ORDER
from leaderboard import boards
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.platform import factories

pytestmark = pytest.mark.django_db


def afresh(problem: Problem, hardware: Hardware) -> list[tuple[Any, ...]]:
    """The board as the entries hold it now: the one query the boards read before they were kept."""
    rows = []
    for e in (LeaderboardEntry.objects.filter(problem=problem, hardware=hardware).order_by(*RANK_ORDER)
              .values("user_id", "user__username", "user__profile__team", "score", "submissions",
                      "submitted_at", "evaluation__submission_id", "evaluation__finished_at",
                      "evaluation__aggregates")):
        figures = e["evaluation__aggregates"] or {}
        rows.append((e["user_id"], e["user__username"], e["user__profile__team"] or "", e["score"],
                     *(v if isinstance(v := figures.get(c.key), int | float) and math.isfinite(v) else None
                       for c in boards.FIGURES),
                     e["submissions"], e["submitted_at"],
                     e["evaluation__finished_at"] if e["score"] is not None else None,
                     e["evaluation__submission_id"]))
    return rows


def read(problem: Problem, hardware: Hardware) -> list[tuple[Any, ...]]:
    return [(r.user_id, r.user, r.team, r.score, *(getattr(r, c.key) for c in boards.FIGURES),
             r.submissions, r.submitted_at, r.last_improved, r.submission_id)
            for r in boards.problem_board(problem, hardware).rows]


@pytest.fixture
def problem(db: Any) -> Problem:
    return factories.make_named_problem("gemm")


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> dict[str, Any]:
    users = [factories.make_participant(f"u{i}") for i in range(3)]
    evaluations = [factories.make_scored(user, problem, cpu, 0.2 + i / 10) for i, user in enumerate(users)]
    factories.make_scored(users[0], problem, cpu, 0.1, verdict="RUNTIME_ERROR")
    assert read(problem, cpu) == afresh(problem, cpu)  # made, then kept
    assert any("board-rows:" in key for key in _keys())
    return {"users": users, "evaluations": evaluations}


def _keys() -> list[str]:
    return list(getattr(cache, "_cache", {}).keys())


def test_kept_rows_are_the_entries(problem: Problem, cpu: Hardware, board: dict[str, Any]) -> None:
    assert read(problem, cpu) == afresh(problem, cpu)  # read from the cache this time
    assert [r.rank for r in boards.problem_board(problem, cpu).rows] == [1, 2, 3]


def test_a_new_scored_evaluation_shows(problem: Problem, cpu: Hardware, board: dict[str, Any]) -> None:
    before = read(problem, cpu)
    factories.make_scored(board["users"][0], problem, cpu, 0.9)
    assert read(problem, cpu) == afresh(problem, cpu) != before
    assert boards.problem_board(problem, cpu).rows[0].user == "u0"


def test_a_worse_one_still_counts_a_submission(problem: Problem, cpu: Hardware,
                                                board: dict[str, Any]) -> None:
    factories.make_scored(board["users"][2], problem, cpu, 0.05)
    assert read(problem, cpu) == afresh(problem, cpu)
    assert boards.problem_board(problem, cpu).rows[0].submissions == 2


def test_a_reward_hack_found_later_shows(problem: Problem, cpu: Hardware, board: dict[str, Any]) -> None:
    admin = factories.make_participant("admin")
    services.mark_reward_hack(board["evaluations"][2], admin, "caught")
    assert read(problem, cpu) == afresh(problem, cpu)
    assert [r.user for r in boards.problem_board(problem, cpu).rows if r.score is not None] == ["u1", "u0"]
    services.clear_reward_hack(board["evaluations"][2], admin, "false alarm")
    assert read(problem, cpu) == afresh(problem, cpu)
    assert boards.problem_board(problem, cpu).rows[0].user == "u2"


def test_a_deleted_entry_goes(problem: Problem, cpu: Hardware, board: dict[str, Any]) -> None:
    LeaderboardEntry.objects.filter(user=board["users"][1]).delete()
    assert read(problem, cpu) == afresh(problem, cpu)
    assert len(boards.problem_board(problem, cpu).rows) == 2


def test_new_names_and_teams_show_at_once(problem: Problem, cpu: Hardware, board: dict[str, Any]) -> None:
    user = board["users"][2]
    Profile.objects.update_or_create(user=user, defaults={"team": "the <new> team"})
    user.username = "renamed"
    user.save()
    assert read(problem, cpu) == afresh(problem, cpu)
    assert (boards.problem_board(problem, cpu).rows[0].user,
            boards.problem_board(problem, cpu).rows[0].team) == ("renamed", "the <new> team")


def test_category_boards_follow_their_problem_boards(problem: Problem, cpu: Hardware,
                                                     board: dict[str, Any]) -> None:
    other = factories.make_named_problem("norm")
    factories.make_scored(board["users"][0], other, cpu, 0.8)
    first = boards.category_board(problem.category, cpu).rows
    assert [(r.user, r.solved) for r in first][:1] == [("u0", 2)]
    factories.make_scored(board["users"][1], other, cpu, 1.0)
    LeaderboardEntry.objects.filter(user=board["users"][2]).delete()
    rows = boards.category_board(problem.category, cpu).rows
    assert [(r.user, r.rank) for r in rows] == [("u1", 1), ("u0", 2)]
    cache.clear()  # nothing kept: the same rows
    assert [vars(r) for r in boards.category_board(problem.category, cpu).rows] == [vars(r) for r in rows]


def test_a_cache_that_does_not_answer_only_costs_queries(problem: Problem, cpu: Hardware,
                                                         board: dict[str, Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get_many", fail)
    monkeypatch.setattr(cache, "set_many", fail)
    assert read(problem, cpu) == afresh(problem, cpu)
