"""The index by start time served only the pages' version (leaderboard 0012 drops it)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("evaluator", "0006_index_by_start"),
        ("leaderboard", "0012_pages_kept_for_seconds"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="evaluation", name="evaluations_by_start"),
    ]
