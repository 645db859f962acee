"""Migration leaderboard 0014 brings entries kept before it to the correct-first rule: an entry
whose best was an incorrect evaluation takes the participant's best correct one, and every entry
with a score learns how many workloads its best failed."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from leaderboard.models import LeaderboardEntry
from tests.platform import factories

BEFORE = [("leaderboard", "0013_score_records")]
AFTER = [("leaderboard", "0014_entries_correct_first")]


@pytest.mark.django_db(transaction=True)
def test_old_entries_are_chosen_again_correct_first() -> None:
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    mixed, wrong = factories.make_participant("mixed"), factories.make_participant("wrong")

    def scored(owner: Any, score: float, passed: int) -> Any:
        aggregates = {"score": score, "total": 5, "passed": passed}
        return factories.make_evaluation(owner=owner, problem=problem, hardware=cpu, state="scored",
                                         score=score, aggregates=aggregates)

    fast_but_wrong = scored(mixed, 0.9, passed=3)
    right = scored(mixed, 0.4, passed=5)
    only_wrong = scored(wrong, 0.6, passed=4)
    scored(wrong, 0.5, passed=2)

    executor = MigrationExecutor(connection)
    try:
        executor.migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps.get_model("leaderboard", "LeaderboardEntry")
        old.objects.all().delete()
        for best in (fast_but_wrong, only_wrong):  # the highest score, as the rule before kept it
            old.objects.create(problem_id=problem.pk, hardware_id=cpu.pk, user_id=best.submission.owner_id,
                               evaluation_id=best.pk, score=best.score, submitted_at=timezone.now(),
                               submissions=2)
        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        entries = {e.user.username: e for e in LeaderboardEntry.objects.select_related("user")}
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

    assert (entries["mixed"].evaluation_id, entries["mixed"].score, entries["mixed"].failed,
            entries["mixed"].workloads) == (right.pk, 0.4, 0, 5)
    assert entries["mixed"].submitted_at == right.submission.created
    assert (entries["wrong"].evaluation_id, entries["wrong"].score, entries["wrong"].failed) == (
        only_wrong.pk, 0.6, 1)
