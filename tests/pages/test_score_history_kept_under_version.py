"""A problem page's best score over time is kept under its board's version (pages.page_queries.
score_history): a new record, a record found to be a reward hack, a renamed record holder all show."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from evaluator import services
from leaderboard.models import Hardware, Problem
from pages import page_queries
from tests.platform import factories

pytestmark = pytest.mark.django_db


def history(problem: Problem, hardware: Hardware) -> list[tuple[float, str]]:
    return [(record.score, record.user) for record in page_queries.score_history(problem, hardware)]


def afresh(problem: Problem, hardware: Hardware) -> list[tuple[float, str]]:
    cache.clear()
    return history(problem, hardware)


@pytest.fixture
def records(problem: Problem, cpu: Hardware) -> list[Any]:
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    made = [factories.make_scored(ada, problem, cpu, 0.3), factories.make_scored(bob, problem, cpu, 0.2),
            factories.make_scored(bob, problem, cpu, 0.5)]
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")]
    return made


def test_an_empty_board_has_no_history(problem: Problem, cpu: Hardware) -> None:
    assert history(problem, cpu) == []


def test_a_new_record_shows(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    factories.make_scored(records[0].submission.owner, problem, cpu, 0.7)
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob"), (0.7, "ada")] == afresh(problem, cpu)


def test_a_record_found_to_be_a_reward_hack_goes(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    services.mark_reward_hack(records[2], factories.make_participant("admin"), "caught")
    assert history(problem, cpu) == [(0.3, "ada")] == afresh(problem, cpu)


def test_a_renamed_record_holder_shows_at_once(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    bob = records[2].submission.owner
    bob.username = "robert"
    bob.save()
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "robert")] == afresh(problem, cpu)
