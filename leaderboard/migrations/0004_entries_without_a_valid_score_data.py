"""Entries as rankings.py now keeps them: a score of 0 is no valid score, and a participant whose
scored evaluations are all invalid has an entry without a score."""

from django.db import migrations
from django.db.models import Count, Min


def forwards(apps, schema_editor):
    Entry = apps.get_model("leaderboard", "LeaderboardEntry")
    Evaluation = apps.get_model("evaluator", "Evaluation")
    groups = (Evaluation.objects.filter(state="scored")
              .values("submission__problem_id", "hardware_id", "submission__owner_id")
              .annotate(first=Min("submission__created"), count=Count("pk")))
    first = {(g["submission__problem_id"], g["hardware_id"], g["submission__owner_id"]): g for g in groups}
    entries = {(e.problem_id, e.hardware_id, e.user_id): e for e in Entry.objects.all()}
    for key, entry in entries.items():
        if entry.score is not None and entry.score <= 0:
            entry.score = entry.evaluation = None
            entry.submitted_at = first[key]["first"] if key in first else entry.submitted_at
            entry.save(update_fields=["score", "evaluation", "submitted_at"])
    Entry.objects.bulk_create(
        Entry(problem_id=key[0], hardware_id=key[1], user_id=key[2], evaluation=None, score=None,
              submitted_at=group["first"], submissions=group["count"])
        for key, group in first.items() if key not in entries)


def backwards(apps, schema_editor):
    apps.get_model("leaderboard", "LeaderboardEntry").objects.filter(score__isnull=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0003_entries_without_a_valid_score"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
