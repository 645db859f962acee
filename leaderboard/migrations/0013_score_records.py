"""Each board's score records (leaderboard.models.ScoreRecord): the problem page's best score over
time reads them instead of a window over every evaluation of the board; filled here from the
evaluations, as evaluator.rankings.rebuild_records makes a board's."""

import django.db.models.deletion
from django.apps.registry import Apps
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.models import F, Max, Window


def fill(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    evaluations = apps.get_model("evaluator", "Evaluation").objects.filter(
        state="scored", reward_hack=False, score__gt=0, finished_at__isnull=False, submission__mode="ranked")
    record = apps.get_model("leaderboard", "ScoreRecord")
    boards = evaluations.order_by().values_list("submission__problem_id", "hardware_id").distinct()
    for problem_id, hardware_id in list(boards):
        board = evaluations.filter(submission__problem_id=problem_id, hardware_id=hardware_id)
        best = Window(Max("score"), order_by=[F("finished_at").asc(), F("pk").asc()])
        leading = (board.annotate(best=best).filter(score__gte=F("best")).order_by("finished_at", "pk")
                   .values_list("pk", "finished_at", "score"))
        record.objects.bulk_create(record(problem_id=problem_id, hardware_id=hardware_id, evaluation_id=pk,
                                          finished_at=finished, score=score)
                                   for pk, finished, score in leading)


class Migration(migrations.Migration):

    dependencies = [
        ("evaluator", "0007_pages_kept_for_seconds"),
        ("leaderboard", "0012_pages_kept_for_seconds"),
        ("submissions", "0004_submission_mode"),
    ]

    operations = [
        migrations.CreateModel(
            name="ScoreRecord",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("finished_at", models.DateTimeField()),
                ("score", models.FloatField()),
                ("evaluation", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                                    to="evaluator.evaluation")),
                ("hardware", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                               to="leaderboard.hardware")),
                ("problem", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                              to="leaderboard.problem")),
            ],
            options={
                "indexes": [models.Index(fields=["problem", "hardware", "finished_at", "evaluation"],
                                         name="score_records_by_board")],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
