"""Both limits are checked under the owner's row lock: requests racing for the last slot of a limit
cannot both take it (real PostgreSQL, one connection per thread)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem
from submissions import services
from submissions.models import Submission
from tests.platform import factories


def race(owner: Any, problems: list[Problem], cpu: Hardware) -> list[str]:
    """Submit to each problem from its own thread, all released at once; each outcome's class name."""
    barrier = threading.Barrier(len(problems))
    outcomes: list[str] = []

    def one(problem: Problem) -> None:
        try:
            barrier.wait(10)
            services.create_submission(owner, problem, factories.solution(), "python", [cpu])
            outcomes.append("created")
        except services.QuotaExceeded as exc:
            outcomes.append(type(exc).__name__)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(p,)) for p in problems]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return sorted(outcomes)


@pytest.fixture
def setup(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Problem, Hardware]:
    monkeypatch.setattr(evaluations, "send", lambda *args, **kwargs: None)  # no broker
    return factories.make_user(), factories.make_problem(), factories.make_hardware("cpu")


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=1, SUBMISSIONS_PER_PROBLEM_PER_DAY=0)
def test_racing_submissions_take_the_last_evaluation_slot_once(setup: tuple[Any, Problem, Hardware]) -> None:
    owner, problem, cpu = setup
    others = [Problem.objects.create(name=f"copy_{i}", category=problem.category, task_type=problem.task_type,
                                     definition=problem.definition, definition_hash=problem.definition_hash)
              for i in range(3)]
    assert race(owner, [problem, *others], cpu) == ["TooManyInFlight"] * 3 + ["created"]
    assert Submission.objects.filter(owner=owner).count() == 1


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=0, SUBMISSIONS_PER_PROBLEM_PER_DAY=1)
def test_racing_submissions_take_the_last_daily_slot_once(setup: tuple[Any, Problem, Hardware]) -> None:
    owner, problem, cpu = setup
    assert race(owner, [problem] * 4, cpu) == ["QuotaExceeded"] * 3 + ["created"]
    assert Submission.objects.filter(owner=owner).count() == 1
