"""Pages are kept for a second or two instead of under one version of the whole site
(pages/page_cache.py, then leaderboard/page_cache.py): the function solarena_page_version() that
computed that version goes, and with it the columns and the index only it read (accounts 0003 and
evaluator 0007 drop the others)."""

import importlib

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

BEFORE = importlib.import_module("leaderboard.migrations.0011_sources_changed_in_page_version")


def drop(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS solarena_page_version()")


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0011_sources_changed_in_page_version"),
    ]

    operations = [
        migrations.RunPython(drop, BEFORE.create),
        migrations.RemoveIndex(model_name="leaderboardentry", name="entries_by_update"),
        migrations.RemoveField(model_name="hardware", name="updated"),
        migrations.RemoveField(model_name="problem", name="sources_changed"),
    ]
