"""The agent board page: one row per upload (each version its own row) with its generalization
figures; filtered by task type, the figures over that type's problems; downloads of every upload by
task type and by problem; bad parameters refused naming what the board takes."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from leaderboard.models import Hardware
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
BOARD = "/boards/agents/cpu/"


@pytest.fixture
def uploads(cpu: Hardware) -> None:
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    norm = factories.make_named_problem("norm", task_type="optimize_triton")
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [None])}, cpu, version="1.0",
                                model="m-1")
    factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [0.7])}, cpu, version="1.1",
                                model="m-2", cost_usd=4.5)
    factories.make_agent_upload(bob, "tuner", {norm: workload_aggregates([0.6], [0.6])}, cpu, version="0.1")


def board(client: Client, query: str = "") -> list[list[str]]:
    body = client.get(f"{BOARD}{query}").content.decode()
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody>")[1], re.S)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in rows]


def test_each_version_is_a_row_with_its_generalization(client: Client, uploads: None) -> None:
    rows = board(client)
    # rank, agent, version, model, owner, team, score, solved, all visible, all workloads, visible, hidden,
    # gap, correctness gap, speed gap, cond. correct, cost
    assert [row[:10] for row in rows] == [
        ["1", "forge", "1.1", "m-2", "ada", "", "0.400", "1", "1", "1"],
        ["2", "tuner", "0.1", "a-model", "bob", "", "0.300", "1", "1", "1"],
        ["3", "forge", "1.0", "m-1", "ada", "", "0.225", "1", "1", "0"]]
    assert rows[2][13:16] == ["1.00", "–", "0%"]  # correctness gap 1: the hidden shape failed
    assert rows[0][13:17] == ["0", "0.200", "100%", "4.50"]  # slower on the hidden shape, not wrong
    triton = board(client, "?task_type=optimize_triton")
    assert [(row[1], row[6]) for row in triton] == [("tuner", "0.600")]
    assert "unknown task type &#x27;triton&#x27;" in client.get(f"{BOARD}?task_type=triton").content.decode()


def test_every_upload_downloads_by_task_type_and_by_problem(client: Client, uploads: None) -> None:
    def table(query: str) -> list[dict[str, str]]:
        response = client.get(f"{BOARD}?{query}")
        assert response.status_code == 200, response.content
        return list(csv.DictReader(io.StringIO(response.content.decode())))

    by_problem = table("format=csv&by=problem")
    assert [(r["version"], r["problem"], r["outcome"]) for r in by_problem] == [
        ("1.1", "gemm", "scored"), ("1.1", "norm", "left out"), ("0.1", "gemm", "left out"),
        ("0.1", "norm", "scored"), ("1.0", "gemm", "scored, 1 of 2 workloads passed"),
        ("1.0", "norm", "left out")]
    by_type = table("format=csv&by=task_type&task_type=from_reference")  # the filtered board's uploads
    assert [(r["agent"], r["task_type"], r["score"]) for r in by_type] == [
        ("forge", "from_reference", "0.8"), ("forge", "optimize_triton", "0.0"),
        ("forge", "from_reference", "0.45"), ("forge", "optimize_triton", "0.0")]
    assert client.get(f"{BOARD}?format=csv&by=problem")["Content-Disposition"] == (
        'attachment; filename="agents-cpu-by-problem.csv"')
    body = client.get(BOARD).content.decode()
    assert 'href="/boards/agents/cpu/?format=csv&amp;by=problem"' in body
    assert 'href="/api/v1/leaderboards/agents/?hardware=cpu&amp;problems=1"' in body
    assert client.get(f"{BOARD}?by=problem").status_code == 400
