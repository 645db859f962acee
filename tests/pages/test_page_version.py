"""The pages' version (boards.global_version): PostgreSQL's solarena_page_version() function
(migration leaderboard 0007) computes what boards.VERSION_PARTS say, and the version moves with
each kind of change it covers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection

from accounts.services import profile_of
from evaluator import services as evaluations
from leaderboard import boards
from leaderboard.models import Hardware, Problem
from leaderboard.services import set_solutions_revealed, store_calibration
from submissions.models import Submission
from submissions.services import set_published
from tests.platform import factories

pytestmark = pytest.mark.django_db


def inline() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT concat_ws('-', " + ", ".join(boards.VERSION_PARTS) + ")")
        return cursor.fetchone()[0]


def test_the_function_computes_the_parts(problem: Problem, cpu: Hardware) -> None:
    assert connection.vendor == "postgresql", "the test suite runs on PostgreSQL (README)"
    assert boards.global_version() == inline()
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)
    assert boards.global_version() == inline()


@pytest.mark.parametrize("change", [
    lambda problem, cpu: factories.make_evaluation(problem=problem, hardware=cpu),
    lambda problem, cpu: evaluations.claim(factories.make_evaluation(problem=problem, hardware=cpu).pk, "w"),
    lambda problem, cpu: factories.make_scored(factories.make_user(), problem, cpu, 0.4),
    lambda problem, cpu: factories.make_agent_run(factories.make_user(), "bot", {problem: 0.2}, cpu),
    lambda problem, cpu: Problem.objects.create(
        name="scale_two", category=problem.category, task_type=problem.task_type,
        definition=problem.definition, definition_hash="2"),
    lambda problem, cpu: store_calibration(cpu.slug, {"memory_bandwidth": 1e11}),
    lambda problem, cpu: _rename_team(),
    lambda problem, cpu: set_published(_bare_submission(problem), True),
    lambda problem, cpu: set_solutions_revealed(Problem.objects.filter(pk=problem.pk), True),
], ids=["new evaluation", "claim", "scored", "upload", "new problem", "calibration", "team", "publish",
        "reveal"])
def test_each_change_moves_it(problem: Problem, cpu: Hardware, change: Callable[..., object]) -> None:
    factories.make_participant("ada")
    before = boards.global_version()
    change(problem, cpu)
    assert boards.global_version() != before


def _rename_team() -> None:
    profile = profile_of(factories.make_user("ada2"))
    before = boards.global_version()
    profile.team = "Wizards"
    profile.save()
    assert boards.global_version() != before


def _bare_submission(problem: Problem) -> Submission:
    """A submission without evaluations: making it moves no part of the version, publishing must."""
    return Submission.objects.create(owner=factories.make_user(), problem=problem, language="python",
                                     sources={"solution.py": factories.CORRECT}, entry="solution.py")
