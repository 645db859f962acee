"""A private agent upload's solutions are evaluated (a ranked run) but enter no board while private:
no entry, no score record, no confirmation run of a leader. Publishing computes the owner's entries
of each board the upload ran on again (the better of their evaluations wins), records the board's
best, and asks for the leaders' confirmation runs; a solution scored after publishing enters as any
other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import caches

from evaluator import services
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem, ScoreRecord
from submissions import agent_publication
from submissions.models import AgentSubmission, Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker() -> Iterator[None]:
    for cache in caches.all():
        cache.clear()
    with mock.patch.object(services, "send"):
        yield


def upload(owner: AbstractBaseUser, private: bool = True, **fields: Any) -> AgentSubmission:
    return AgentSubmission.objects.create(owner=owner, name="forge", version=fields.pop("version", "1.0"),
                                          model="m", private=private, **fields)


def scored_solution(agent: AgentSubmission, problem: Problem, hardware: Hardware, score: float) -> Evaluation:
    """A solution of the upload scored through the real claim and ingestion path."""
    submission = Submission.objects.create(owner=agent.owner, problem=problem, language="python",
                                           sources={"solution.py": factories.CORRECT}, entry="solution.py",
                                           agent_submission=agent, mode=agent.mode)
    evaluation = Evaluation.objects.create(submission=submission, hardware=hardware, seed=7)
    assert services.claim(evaluation.pk, "worker-1") is not None
    assert services.ingest(evaluation.pk, "worker-1", factories.fake_report(evaluation, score))
    return evaluation


def confirmation_runs(evaluation: Evaluation) -> int:
    return Evaluation.objects.filter(confirms=evaluation).count()


def test_a_private_upload_enters_no_board_until_published(problem: Problem, cpu: Hardware) -> None:
    owner, rival = factories.make_user(), factories.make_user()
    factories.make_scored(rival, problem, cpu, 0.4)
    agent = upload(owner)
    evaluation = scored_solution(agent, problem, cpu, 0.9)

    assert evaluation.refresh_from_db() is None and evaluation.state == Evaluation.SCORED
    assert evaluation.score == 0.9, "a private upload is evaluated as any ranked run"
    assert not LeaderboardEntry.objects.filter(user=owner).exists()
    assert not ScoreRecord.objects.filter(evaluation=evaluation).exists()
    assert confirmation_runs(evaluation) == 0, "a private leader is never run again to confirm it"

    assert agent_publication.publish_agent_submission(agent) is True
    agent.refresh_from_db()
    assert agent.private is False
    entry = LeaderboardEntry.objects.get(user=owner, problem=problem, hardware=cpu)
    assert (entry.evaluation_id, entry.score, entry.submissions) == (evaluation.pk, 0.9, 1)
    assert ScoreRecord.objects.filter(evaluation=evaluation).exists(), "the board's new best is a record"
    assert confirmation_runs(evaluation) == 1, "once public, the new leader is confirmed as any other"


def test_publishing_keeps_the_better_of_the_owners_evaluations(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    alone = factories.make_scored(owner, problem, cpu, 0.7)
    agent = upload(owner)
    worse = scored_solution(agent, problem, cpu, 0.5)
    entry = LeaderboardEntry.objects.get(user=owner)
    assert (entry.evaluation_id, entry.submissions) == (alone.pk, 1), "the private run is not counted"

    agent_publication.publish_agent_submission(agent)
    entry.refresh_from_db()
    assert (entry.evaluation_id, entry.score, entry.submissions) == (alone.pk, 0.7, 2)
    assert worse.pk != entry.evaluation_id


def test_a_solution_scored_after_publishing_enters_at_ingestion(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    agent = upload(owner)
    agent_publication.publish_agent_submission(agent)
    evaluation = scored_solution(agent, problem, cpu, 0.6)
    assert LeaderboardEntry.objects.get(user=owner).evaluation_id == evaluation.pk


def test_publishing_twice_changes_nothing(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    agent = upload(owner)
    scored_solution(agent, problem, cpu, 0.6)
    assert agent_publication.publish_agent_submission(agent) is True
    updated = LeaderboardEntry.objects.get(user=owner).updated
    assert agent_publication.publish_agent_submission(agent) is False
    assert LeaderboardEntry.objects.get(user=owner).updated == updated


def test_a_test_upload_cannot_be_published(problem: Problem, cpu: Hardware) -> None:
    agent = upload(factories.make_user(), mode="test")
    with pytest.raises(agent_publication.NotPublishable, match="is a test run"):
        agent_publication.publish_agent_submission(agent)
    agent.refresh_from_db()
    assert agent.private is True


def test_a_public_upload_enters_the_boards_at_once(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    evaluation = scored_solution(upload(owner, private=False), problem, cpu, 0.8)
    assert LeaderboardEntry.objects.get(user=owner).evaluation_id == evaluation.pk
    assert confirmation_runs(evaluation) == 1
