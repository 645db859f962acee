"""Migration leaderboard 0004 brings entries kept before it to today's rule: a score of 0 is no valid
score, and a participant whose scored evaluations are all invalid gets an entry without a score."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from leaderboard.models import LeaderboardEntry
from tests.platform import factories

BEFORE = [("leaderboard", "0003_entries_without_a_valid_score")]
AFTER = [("leaderboard", "0004_entries_without_a_valid_score_data")]


@pytest.mark.django_db(transaction=True)
def test_old_entries_follow_the_new_rule() -> None:
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    kept, zero, hacker = (factories.make_participant(n) for n in ("kept", "zero", "hacker"))
    early = timezone.now() - timedelta(hours=1)

    def scored(owner: Any, score: float, **fields: Any) -> Any:
        evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu, state="scored",
                                               score=score, **fields)
        evaluation.submission.__class__.objects.filter(pk=evaluation.submission_id).update(created=early)
        return evaluation

    best = scored(kept, 0.7)
    nothing = scored(zero, 0.0)
    scored(hacker, 0.9, reward_hack=True)
    scored(hacker, 0.8, reward_hack=True)

    executor = MigrationExecutor(connection)
    try:
        executor.migrate(BEFORE)
        # As rankings.py kept them before: entries for valid scores only, a score of 0 among them.
        old = executor.loader.project_state(BEFORE).apps.get_model("leaderboard", "LeaderboardEntry")
        old.objects.all().delete()
        for evaluation in (best, nothing):
            old.objects.create(problem_id=problem.pk, hardware_id=cpu.pk,
                               user_id=evaluation.submission.owner_id, evaluation_id=evaluation.pk,
                               score=evaluation.score, submitted_at=timezone.now(), submissions=1)
        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())  # later migrations back for the next tests
    # Read through today's model, once its columns are back; the later migrations keep these rows.
    entries = {e.user.username: e for e in LeaderboardEntry.objects.select_related("user")}

    assert set(entries) == {"kept", "zero", "hacker"}
    assert (entries["kept"].evaluation_id, entries["kept"].score) == (best.pk, 0.7)
    zero_entry = entries["zero"]
    assert (zero_entry.evaluation, zero_entry.score, zero_entry.submitted_at) == (None, None, early)
    assert (entries["hacker"].score, entries["hacker"].submissions, entries["hacker"].submitted_at) == (
        None, 2, early)
