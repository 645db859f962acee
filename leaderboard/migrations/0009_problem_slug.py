"""Problem.slug, the problem in URLs; names may be up to 200 characters, as written.

Every name stored so far was lowercase letters, digits and '_', which slug_of keeps as it is, so the
existing rows take their name as their slug and keep their URLs.
"""

from django.apps.registry import Apps
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.models import F


def slug_is_name(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    apps.get_model("leaderboard", "Problem").objects.update(slug=F("name"))


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0008_workload_reference_flops"),
    ]

    operations = [
        migrations.AlterField(
            model_name="problem",
            name="name",
            field=models.CharField(max_length=200),
        ),
        migrations.AddField(
            model_name="problem",
            name="slug",
            field=models.SlugField(default="", help_text="made from the name: the problem in URLs",
                                   max_length=100),
            preserve_default=False,
        ),
        migrations.RunPython(slug_is_name, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="problem",
            constraint=models.UniqueConstraint(condition=models.Q(is_current=True), fields=("slug",),
                                               name="one_current_problem_per_slug"),
        ),
    ]
