"""Problem.sources_changed, stamped by every publish, unpublish, reveal and hide, and
solarena_page_version() replaced to read it too (boards.VERSION_PARTS): the cached pages then show
such a change at once, where an agent's logs stayed up to the cache's timeout."""

import importlib

from django.apps.registry import Apps
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

BEFORE = importlib.import_module("leaderboard.migrations.0007_page_version_function")
PARTS = (*BEFORE.PARTS, "(SELECT MAX(sources_changed) FROM leaderboard_problem)")
CREATE = ("CREATE OR REPLACE FUNCTION solarena_page_version() RETURNS text LANGUAGE plpgsql STABLE AS $$ "
          "BEGIN RETURN concat_ws('-', " + ", ".join(PARTS) + "); END $$")


def create(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def restore(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    BEFORE.create(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0010_definition_keeps_key_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="problem",
            name="sources_changed",
            field=models.DateTimeField(
                blank=True, null=True,
                help_text="the last publish, unpublish, reveal or hide of a source of this problem (part of "
                          "the pages' version)"),
        ),
        migrations.RunPython(create, restore),
    ]
