"""Entries keep how many workloads their best evaluation failed, and the best is chosen correct
first (evaluator.rankings): each entry with a score is chosen again from its participant's valid
ranked evaluations of the board, in one pass over them."""

from typing import Any

from django.db import migrations, models
from django.db.models import IntegerField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast


def _counts(total: Any, passed: Any) -> tuple[int, int]:
    if not isinstance(total, int) or not isinstance(passed, int):
        return 0, 0
    return max(total - passed, 0), total


def choose_correct_first(apps: Any, schema_editor: Any) -> None:
    Evaluation = apps.get_model("evaluator", "Evaluation")
    LeaderboardEntry = apps.get_model("leaderboard", "LeaderboardEntry")
    valid = (Evaluation.objects.filter(state="scored", reward_hack=False, score__gt=0, submission__mode="ranked")
             .annotate(total=Cast(KT("aggregates__total"), IntegerField()),
                       passed=Cast(KT("aggregates__passed"), IntegerField()))
             .values_list("submission__problem_id", "hardware_id", "submission__owner_id", "pk", "score",
                          "submission__created", "total", "passed"))
    best: dict[tuple[int, int, int], tuple[Any, ...]] = {}
    for problem, hardware, user, pk, score, created, total, passed in valid.iterator():
        failed, workloads = _counts(total, passed)
        candidate = (failed > 0, -score, created, pk, failed, workloads)
        key = (problem, hardware, user)
        if key not in best or candidate < best[key]:
            best[key] = candidate
    for entry in LeaderboardEntry.objects.filter(score__isnull=False).iterator():
        chosen = best.get((entry.problem_id, entry.hardware_id, entry.user_id))
        if chosen is None:
            continue
        _, negative_score, created, pk, failed, workloads = chosen
        LeaderboardEntry.objects.filter(pk=entry.pk).update(
            evaluation_id=pk, score=-negative_score, submitted_at=created, failed=failed, workloads=workloads)


class Migration(migrations.Migration):

    dependencies = [
        ("evaluator", "0008_worker_heartbeats"),
        ("leaderboard", "0013_score_records"),
        ("submissions", "0005_agent_submission_mode"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="failed",
            field=models.PositiveIntegerField(default=0, help_text="workloads the best evaluation failed, "
                                              "visible and hidden: any ranks the entry below every entry "
                                              "with none"),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="workloads",
            field=models.PositiveIntegerField(default=0, help_text="workloads the best evaluation ran"),
        ),
        migrations.RunPython(choose_correct_first, migrations.RunPython.noop),
    ]
