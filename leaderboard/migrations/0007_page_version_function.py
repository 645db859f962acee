"""solarena_page_version(): boards.global_version's query as a PostgreSQL function, whose plan the
connection keeps (planning the query was most of its cost on every page view). Other databases
run the query itself. The parts are a copy of boards.VERSION_PARTS as they were when this was
written; a later change of those needs a migration that replaces the function (the test
tests/pages/test_page_version.py fails until it does)."""

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

PARTS = (
    "(SELECT MAX(id) FROM evaluator_evaluation)",
    "(SELECT MAX(started_at) FROM evaluator_evaluation)",
    "(SELECT MAX(finished_at) FROM evaluator_evaluation)",
    "(SELECT MAX(updated) FROM leaderboard_leaderboardentry)",
    "(SELECT MAX(id) FROM submissions_agentsubmission)",
    "(SELECT COUNT(*) FROM leaderboard_problem WHERE is_current)",
    "(SELECT MAX(id) FROM leaderboard_problem WHERE is_current)",
    "(SELECT MAX(updated) FROM leaderboard_hardware)",
    "(SELECT MAX(updated) FROM accounts_profile)",
)
CREATE = ("CREATE OR REPLACE FUNCTION solarena_page_version() RETURNS text LANGUAGE plpgsql STABLE AS $$ "
          "BEGIN RETURN concat_ws('-', " + ", ".join(PARTS) + "); END $$")
DROP = "DROP FUNCTION IF EXISTS solarena_page_version()"


def create(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_updated_for_page_versions"),
        ("evaluator", "0006_index_by_start"),
        ("leaderboard", "0006_updated_for_page_versions"),
        ("submissions", "0003_submission_published"),
    ]

    operations = [migrations.RunPython(create, drop)]
