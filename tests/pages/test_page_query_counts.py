"""Each public page of this issue takes the same number of queries with a few rows as with many."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def problem(db: Any) -> Problem:
    """Renamed, so that factories.make_named_problem can add more."""
    return factories.make_named_problem("scale_one")


def queries(client: Client, url: str) -> int:
    cache.clear()  # what the pages cache (pages/page_cache.py) only ever saves queries
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def same_with_more(client: Client, url: str, grow: Callable[[], Any],
                   django_assert_num_queries: Any) -> None:
    few = queries(client, url)
    grow()
    cache.clear()
    with django_assert_num_queries(few):
        assert client.get(url).status_code == 200


def test_problem_pages(client: Client, problem: Problem, cpu: Hardware,
                       django_assert_num_queries: Any) -> None:
    factories.make_hardware("h200")
    factories.make_scored(factories.make_user(), problem, cpu, 0.5)

    def grow() -> None:
        for i in range(8):
            factories.make_scored(factories.make_user(), problem, cpu, 0.1 + i / 10)
        factories.make_named_problem("scale_two")

    same_with_more(client, f"/problems/{problem.name}/?hardware=cpu", grow, django_assert_num_queries)
    same_with_more(client, "/problems/", lambda: factories.make_named_problem("scale_three"),
                   django_assert_num_queries)


def test_submission_page_and_its_live_part(client: Client, problem: Problem, cpu: Hardware,
                                           django_assert_num_queries: Any) -> None:
    owner = factories.make_user()
    client.force_login(owner)
    first = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    workloads = list(problem.workloads.filter(smoke=True).order_by("position"))
    WorkloadResult.objects.create(evaluation=first, workload=workloads[0], status="PASSED", latency_ms=1.0,
                                  sol_ms=0.5, score=0.5)
    Evaluation.objects.filter(pk=first.pk).update(state=Evaluation.SCORED, score=0.5)

    def grow() -> None:
        for workload in workloads[1:]:
            WorkloadResult.objects.create(evaluation=first, workload=workload, status="PASSED",
                                          latency_ms=1.0, sol_ms=0.5, score=0.5)
        for slug in ("h100", "h200"):
            second = Evaluation.objects.create(
                submission=first.submission, hardware=factories.make_hardware(slug), seed=1,
                state=Evaluation.RUNNING, progress={"visible": 1, "statuses": ["PASSED", "running"]})
            WorkloadResult.objects.create(evaluation=second, workload=workloads[0], status="PASSED",
                                          latency_ms=1.0, sol_ms=0.5, score=0.5)

    same_with_more(client, f"/submissions/{first.submission_id}/", grow, django_assert_num_queries)
    same_with_more(client, f"/submissions/{first.submission_id}/live/", lambda: None,
                   django_assert_num_queries)


def test_participant_and_agent_profiles(client: Client, problem: Problem, cpu: Hardware,
                                        django_assert_num_queries: Any) -> None:
    owner = factories.make_user("ada")
    other = factories.make_named_problem("scale_two")
    factories.make_scored(owner, problem, cpu, 0.5)
    factories.make_agent_run(owner, "bot", {problem: 0.5}, cpu)

    def grow() -> None:
        h200 = factories.make_hardware("h200")
        for score in (0.2, 0.3, 0.6):
            factories.make_scored(owner, other, cpu, score)
            factories.make_scored(owner, problem, h200, score)
            factories.make_scored(factories.make_user(), problem, cpu, score)
        factories.make_agent_run(owner, "bot", {problem: 0.7, other: None}, cpu, version="2")
        factories.make_agent_run(owner, "bot", {problem: 0.8, other: 0.1}, h200, version="3")
        factories.make_agent_run(owner, "another", {problem: 0.1}, cpu)

    same_with_more(client, "/u/ada/", grow, django_assert_num_queries)
    def upload() -> None:
        factories.make_agent_run(owner, "bot", {other: 0.2}, cpu)

    same_with_more(client, "/agents/ada/bot/", upload, django_assert_num_queries)


def test_hardware_pages(client: Client, problem: Problem, cpu: Hardware,
                        django_assert_num_queries: Any) -> None:
    factories.make_scored(factories.make_user(), problem, cpu, 0.5)

    def grow() -> None:
        other = factories.make_named_problem("scale_two")
        for score in (0.2, 0.3):
            factories.make_scored(factories.make_user(), other, cpu, score)
        factories.make_evaluation(problem=problem, hardware=cpu)
        for slug in ("h100", "h200", "b200"):
            factories.make_hardware(slug)

    same_with_more(client, "/hardware/cpu/", grow, django_assert_num_queries)
    same_with_more(client, "/hardware/", lambda: factories.make_hardware("a100"),
                   django_assert_num_queries)
