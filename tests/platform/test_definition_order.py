"""A stored definition keeps its key order: the inputs reach run in the order it takes them, the
outputs in the order it returns them. (PostgreSQL's jsonb sorted them: layernorm's x, weight, bias,
eps came back as x, eps, bias, weight.) Rows stored that way are put back in order by migration
0009 (inputs, from the reference's run) and by the next sync_problems (everything)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluator.harness.problem import load_problem
from leaderboard.models import Problem
from leaderboard.problems import harness_problem
from tests.conftest import ROOT
from tests.platform.test_sync_problems import sync

LAYERNORM, ROPE = ROOT / "problems" / "layernorm", ROOT / "problems" / "rope"


@pytest.mark.django_db
def test_inputs_and_outputs_come_back_in_their_order() -> None:
    for directory in (LAYERNORM, ROPE):
        sync(directory)
        loaded = load_problem(directory).definition
        stored = harness_problem(Problem.objects.get(name=directory.name)).definition
        assert list(stored.inputs) == list(loaded.inputs)
        assert list(stored.outputs) == list(loaded.outputs)
    assert list(load_problem(LAYERNORM).definition.inputs) == ["x", "weight", "bias", "eps"]


@pytest.mark.django_db
def test_sync_rewrites_an_unchanged_definition_stored_in_another_order() -> None:
    sync(ROPE)
    row = Problem.objects.get()
    scrambled = row.definition
    scrambled["outputs"] = dict(reversed(list(scrambled["outputs"].items())))
    Problem.objects.filter(pk=row.pk).update(definition=scrambled)
    assert list(Problem.objects.get().definition["outputs"]) == ["k_out", "q_out"]
    assert sync(ROPE)[0] == "rope: unchanged (version 1)\n"
    row = Problem.objects.get()
    assert list(row.definition["outputs"]) == ["q_out", "k_out"] and row.version == 1


@pytest.mark.django_db(transaction=True)
def test_migration_puts_inputs_back_in_the_order_run_takes_them() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("only jsonb loses the order")
    sync(LAYERNORM)
    before = [("leaderboard", "0009_problem_slug")]
    after = [("leaderboard", "0010_definition_keeps_key_order")]
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(before)
        with connection.cursor() as cursor:
            cursor.execute("SELECT definition FROM leaderboard_problem")
            [(as_jsonb_keeps_it,)] = cursor.fetchall()
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        with connection.cursor() as cursor:  # the model of today has columns of later migrations
            cursor.execute("SELECT definition FROM leaderboard_problem")
            [(stored,)] = cursor.fetchall()
        repaired = stored if isinstance(stored, dict) else json.loads(stored)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    jsonb = as_jsonb_keeps_it if isinstance(as_jsonb_keeps_it, dict) else json.loads(as_jsonb_keeps_it)
    assert list(jsonb["inputs"]) == ["x", "eps", "bias", "weight"]  # the bug
    assert list(repaired["inputs"]) == ["x", "weight", "bias", "eps"]
