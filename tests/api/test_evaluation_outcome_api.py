"""Each evaluation in the API carries `outcome` beside `state`: what happened in the pages' words
(evaluator/scoring/outcome.py), in the submission lists, a submission's detail and an agent
submission's; `state` is as it was."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.api.support import SUBMISSIONS, api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db


def outcomes(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["state"], e["outcome"]) for e in document["evaluations"]]


def test_outcome_beside_state_in_lists_and_detail(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    failed = factories.make_scored(owner, problem, cpu, 0.0, verdict="COMPILE_ERROR")
    wrong = factories.make_scored(owner, problem, cpu, 0.0, verdict="INCORRECT_NUMERICAL")
    good = factories.make_scored(owner, problem, cpu, 0.5)
    queued = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    client = client_for(owner)
    listed = {row["id"]: outcomes(row) for row in client.get(SUBMISSIONS).json()["results"]}
    assert listed == {failed.submission_id: [("scored", "did not compile")],
                      wrong.submission_id: [("scored", "incorrect on every workload")],
                      good.submission_id: [("scored", "scored")],
                      queued.submission_id: [("queued", "queued")]}
    detail = client.get(f"{SUBMISSIONS}{failed.submission_id}/").json()
    assert outcomes(detail) == [("scored", "did not compile")]
    Evaluation.objects.filter(pk=good.pk).update(reward_hack=True)
    assert outcomes(client.get(f"{SUBMISSIONS}{good.submission_id}/").json()) == [
        ("scored", "flagged: reward hack")]


def test_an_agent_submissions_solutions_carry_their_outcome(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    agent = factories.make_agent_run(owner, "bot", {problem: None}, cpu)
    document = client_for(owner).get(f"/api/v1/agent-submissions/{agent.pk}/").json()
    assert [outcomes(s) for s in document["submissions"]] == [[("failed", "failed on the platform")]]
