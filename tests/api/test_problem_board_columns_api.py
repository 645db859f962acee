"""GET /api/v1/leaderboards/{problem}/{hardware}/ carries the best evaluation's figures and lists the
participants without a valid score apart, under `unranked`."""

from __future__ import annotations

from datetime import datetime

import pytest

from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_figures_of_the_best_evaluation_and_unranked_participants(problem: Problem, cpu: Hardware) -> None:
    ada, bob, cyd = (factories.make_participant(n) for n in ("ada", "bob", "cyd"))
    factories.make_scored(ada, problem, cpu, 0.3, visible_score=0.1)
    best = factories.make_scored(ada, problem, cpu, 0.6, visible_score=0.7, hidden_score=0.5,
                                 generalization_gap=0.2, conditional_correctness=0.5, geomean_speedup=2.5)
    factories.make_scored(bob, problem, cpu, 0.0, verdict="INCORRECT_SHAPE")
    factories.make_scored(cyd, problem, cpu, 0.9, verdict="REWARD_HACK")

    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    [entry] = body["entries"]
    expected = {"rank": 1, "user": "ada", "score": 0.6, "visible_score": 0.7, "hidden_score": 0.5,
                "generalization_gap": 0.2, "conditional_correctness": 0.5, "geomean_speedup": 2.5,
                "submissions": 2}
    assert {key: entry[key] for key in expected} == expected
    assert datetime.fromisoformat(entry["last_improved"]) == best.finished_at
    assert datetime.fromisoformat(entry["submitted_at"]) == best.submission.created
    assert [(u["user"], u["submissions"]) for u in body["unranked"]] == [("bob", 1), ("cyd", 1)]
    assert set(body["unranked"][0]) == {"user", "team", "submissions", "submitted_at", "status"}
