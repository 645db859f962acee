"""GET /api/v1/leaderboards/{problem}/{hardware}/: public, best first, each participant once with
their rank, team, best score, submission count and when the best one came in."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.contrib.auth.models import AbstractBaseUser

from accounts.services import profile_of
from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db


def scored(owner: AbstractBaseUser, problem: Problem, hardware: Hardware, score: float) -> Evaluation:
    """A submission scored through the real ingestion path (which keeps the entries)."""
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=hardware)
    assert evaluations.claim(evaluation.pk, "worker") is not None
    assert evaluations.ingest(evaluation.pk, "worker", factories.fake_report(evaluation, score=score))
    return evaluation


def test_board_ranks_each_participant_by_their_best(problem: Problem, cpu: Hardware) -> None:
    ada, grace, linus = (factories.make_user(name) for name in ("ada", "grace", "linus"))
    profile = profile_of(grace)
    profile.team = "Compilers"
    profile.save()
    scored(ada, problem, cpu, 0.4)
    best = scored(ada, problem, cpu, 0.7)
    scored(grace, problem, cpu, 0.9)
    scored(linus, problem, cpu, 0.2)
    scored(linus, problem, factories.make_hardware("h200"), 1.0)  # another board

    response = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/")
    assert response.status_code == 200
    body = response.json()
    assert (body["problem"], body["version"], body["hardware"]) == ("scale_shift", 1, "cpu")
    rows = [(e["rank"], e["user"], e["team"], e["score"], e["submissions"]) for e in body["entries"]]
    assert rows == [(1, "grace", "Compilers", 0.9, 1), (2, "ada", "", 0.7, 2), (3, "linus", "", 0.2, 1)]
    assert datetime.fromisoformat(body["entries"][1]["submitted_at"]) == best.submission.created


def test_reward_hacks_do_not_rank(problem: Problem, cpu: Hardware) -> None:
    cheat = scored(factories.make_user("cheat"), problem, cpu, 1.0)
    evaluations.mark_reward_hack(cheat, factories.make_user("reviewer"), "replays answers")
    scored(factories.make_user("honest"), problem, cpu, 0.5)
    entries = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()["entries"]
    assert [e["user"] for e in entries] == ["honest"]


def test_an_empty_board(problem: Problem, cpu: Hardware) -> None:
    assert client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()["entries"] == []


def test_unknown_problem_or_hardware_is_404(problem: Problem, cpu: Hardware) -> None:
    api = client_for(None)
    assert api.get("/api/v1/leaderboards/nope/cpu/").status_code == 404
    assert api.get("/api/v1/leaderboards/scale_shift/tpu9/").status_code == 404
