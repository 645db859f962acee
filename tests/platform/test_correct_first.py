"""Correct first: an entry whose best evaluation failed any workload (visible or hidden) ranks
below every entry that passed them all, whatever the scores, and the board says so; a participant's
correct evaluation is their best over an incorrect one that scored higher. The same order on the
board page, its CSV, the API, the participant's page and after rankings.recompute_entry."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evaluator.models import Evaluation
from evaluator.rankings import board, recompute_entry
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db


def _scored(owner: Any, problem: Problem, cpu: Hardware, score: float, failed: int = 0) -> Evaluation:
    """Scored through the real ingestion path, `failed` of its workloads not passed."""
    total = len(factories.workloads_for(problem, smoke=True))  # what the cpu runs
    return factories.make_scored(owner, problem, cpu, score, passed=total - failed)


def test_an_incorrect_entry_ranks_below_every_correct_one(problem: Problem, cpu: Hardware) -> None:
    fast, slow, slower = (factories.make_participant(n) for n in ("fast", "slow", "slower"))
    wrong = _scored(fast, problem, cpu, 0.9, failed=2)
    _scored(slow, problem, cpu, 0.3)
    _scored(slower, problem, cpu, 0.2)
    total = wrong.aggregates["total"]

    ranked = board(problem.pk, cpu.pk)
    assert [e.user.username for e in ranked] == ["slow", "slower", "fast"]
    assert [(e.failed, e.workloads) for e in ranked] == [(0, total), (0, total), (2, total)]

    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    assert [(e["rank"], e["user"], e["failed_workloads"], e["correct"]) for e in body["entries"]] == [
        (1, "slow", 0, f"all {total}"), (2, "slower", 0, f"all {total}"),
        (3, "fast", 2, f"incorrect on 2 of {total} workloads")]

    page = Client().get("/boards/problems/scale_shift/cpu/").content.decode()
    assert page.index(">slow<") < page.index(">slower<") < page.index(">fast<")
    assert f"incorrect on 2 of {total} workloads" in page
    csv = Client().get("/boards/problems/scale_shift/cpu/?format=csv").content.decode().splitlines()
    assert csv[0].split(",")[:5] == ["rank", "user", "team", "score", "correct"]
    assert [line.split(",")[1] for line in csv[1:]] == ["slow", "slower", "fast"]

    participant = Client().get("/u/fast/").content.decode()
    assert "3 / 3" in participant


def test_a_participants_correct_evaluation_is_their_best(problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    _scored(ada, problem, cpu, 0.9, failed=1)
    correct = _scored(ada, problem, cpu, 0.4)
    _scored(ada, problem, cpu, 0.95, failed=3)  # a higher score does not displace a correct one
    entry = LeaderboardEntry.objects.get()
    assert (entry.evaluation_id, entry.score, entry.failed, entry.submissions) == (correct.pk, 0.4, 0, 3)
    assert _fields(recompute_entry(problem.pk, cpu.pk, ada.pk)) == _fields(entry)

    better = _scored(ada, problem, cpu, 0.5)
    entry.refresh_from_db()
    assert (entry.evaluation_id, entry.score) == (better.pk, 0.5)
    assert _fields(recompute_entry(problem.pk, cpu.pk, ada.pk)) == _fields(entry)


def test_among_incorrect_evaluations_the_higher_score_is_kept(problem: Problem, cpu: Hardware) -> None:
    bob = factories.make_participant("bob")
    _scored(bob, problem, cpu, 0.3, failed=1)
    higher = _scored(bob, problem, cpu, 0.6, failed=4)
    entry = LeaderboardEntry.objects.get()
    assert (entry.evaluation_id, entry.failed) == (higher.pk, 4)
    assert _fields(recompute_entry(problem.pk, cpu.pk, bob.pk)) == _fields(entry)


def _fields(entry: LeaderboardEntry | None) -> tuple[Any, ...]:
    assert entry is not None
    return (entry.evaluation_id, entry.score, entry.failed, entry.workloads, entry.submitted_at,
            entry.submissions)
