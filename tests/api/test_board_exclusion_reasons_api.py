"""GET /api/v1/leaderboards/{problem}/{hardware}/ says why each unranked participant has no valid
score (`unranked[].status`: code, text, the submission it is about) and marks a disputed entry
(`entries[].status`), the same words as the board pages, and never the review notes."""

from __future__ import annotations

import pytest
from django.utils import timezone

from evaluator import services
from evaluator.harness import status
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
NOTE = "it replays the answers of hidden workload 3 (shape 37 x 1031)"


def test_each_unranked_participant_has_a_reason(problem: Problem, cpu: Hardware) -> None:
    flagged = factories.make_scored(factories.make_participant("bob"), problem, cpu, 0.0,
                                    verdict=status.REWARD_HACK)
    failed = factories.make_scored(factories.make_participant("cal"), problem, cpu, 0.0,
                                   verdict=status.RUNTIME_ERROR)
    reviewed = factories.make_scored(factories.make_participant("dan"), problem, cpu, 0.8)
    services.mark_reward_hack(reviewed, factories.make_participant("moderator-x9"), NOTE)
    ranked = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)
    disputed = factories.make_scored(factories.make_participant("eve"), problem, cpu, 0.6)
    Evaluation.objects.filter(pk=disputed.pk).update(confirmation=Evaluation.DISPUTED)
    LeaderboardEntry.objects.filter(evaluation=disputed).update(updated=timezone.now())

    response = client_for(None).get(f"/api/v1/leaderboards/{problem.slug}/cpu/")
    assert response.status_code == 200
    body = response.json()
    assert {row["user"]: row["status"] for row in body["unranked"]} == {
        "bob": {"code": "reward_hack", "text": "reward hack: flagged by the harness",
                "submission": flagged.submission_id},
        "cal": {"code": "no_workload_passed", "text": "no workload passed: runtime error",
                "submission": failed.submission_id},
        "dan": {"code": "disqualified", "text": "disqualified by review",
                "submission": reviewed.submission_id},
    }
    assert [(row["user"], row["status"]) for row in body["entries"]] == [
        ("eve", {"code": "disputed", "text": "disputed: under review", "submission": disputed.submission_id}),
        ("ada", None)]
    assert ranked.submission_id == body["entries"][1]["submission"]
    assert NOTE not in response.content.decode() and "moderator-x9" not in response.content.decode()
