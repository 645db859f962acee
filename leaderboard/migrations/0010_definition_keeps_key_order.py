"""Problem.definition as JSON text, which keeps the key order jsonb lost.

jsonb sorts an object's keys (shorter first), so a stored definition's inputs came back in another
order than run takes them (layernorm's x, weight, bias, eps as x, eps, bias, weight) and the harness
passed them to run in that order. The reference's run names its inputs in order (the loader checks
it), so this migration puts each stored definition's inputs back in that order; the outputs' order
is restored when sync_problems next reads the suite (an unchanged problem's definition is rewritten
in its files' order).
"""

import ast
import json

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

import leaderboard.models


def run_parameters(source: str) -> list[str] | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    runs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "run"]
    if not runs:
        return None
    return [a.arg for a in runs[-1].args.posonlyargs + runs[-1].args.args]


def inputs_in_run_order(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Problem = apps.get_model("leaderboard", "Problem")
    for problem in Problem.objects.only("definition"):
        definition = json.loads(problem.definition) if isinstance(problem.definition, str) else problem.definition
        inputs = definition.get("inputs") or {}
        order = run_parameters(definition.get("reference") or "")
        if order is None or sorted(order) != sorted(inputs) or order == list(inputs):
            continue
        definition["inputs"] = {name: inputs[name] for name in order}
        Problem.objects.filter(pk=problem.pk).update(definition=definition)


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0009_problem_slug"),
    ]

    operations = [
        migrations.AlterField(
            model_name="problem",
            name="definition",
            field=leaderboard.models.OrderedJSONField(
                help_text="the whole definition, sources inline, in its key order"),
        ),
        migrations.RunPython(inputs_in_run_order, migrations.RunPython.noop),
    ]
