"""An agent's page shows what each upload spent (tokens read and written beside the total) and, problem
by problem, the cost, tokens and wall time its manifest gives; the downloads carry the same figures;
the agent board has a tokens column beside the cost."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from leaderboard.models import Hardware
from submissions.models import Submission
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db


@pytest.fixture
def upload(cpu: Hardware) -> None:
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    norm = factories.make_named_problem("norm", task_type="optimize_triton")
    agent = factories.make_agent_upload(factories.make_participant("ada"), "forge",
                                        {gemm: workload_aggregates([0.9], [0.7]),
                                         norm: workload_aggregates([0.5], [0.5])}, cpu,
                                        cost_usd=4.5, tokens=2000, tokens_input=1500, tokens_output=400)
    Submission.objects.filter(agent_submission=agent, problem=gemm).update(agent_usage={
        "cost_usd": 1.25, "tokens_input": 900, "tokens_output": 100, "wall_seconds": 95})


def test_the_page_shows_the_usage_problem_by_problem(client: Client, upload: None) -> None:
    body = client.get("/agents/ada/forge/").content.decode()
    assert "2000 <span class=\"muted\">(in 1500 / out 400)</span>" in body
    problems = body[body.index('class="compact problems"'):]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", problems.split("<tbody>")[1], re.S)
    cells = {re.sub(r"<[^>]+>", "", row.split("</td>")[0]).strip():
             [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)][-3:]
             for row in rows}
    assert cells == {"gemm": ["1.25", "900 / 100", "95"], "norm": ["–", "–", "–"]}


def test_the_downloads_and_the_board_carry_it(client: Client, upload: None) -> None:
    lines = list(csv.DictReader(io.StringIO(
        client.get("/boards/agents/cpu/?format=csv&by=problem").content.decode())))
    assert [(r["problem"], r["cost_usd"], r["tokens_input"], r["tokens_output"], r["wall_seconds"])
            for r in lines] == [("gemm", "1.25", "900", "100", "95"), ("norm", "", "", "", "")]
    uploads = list(csv.DictReader(io.StringIO(client.get("/agents/ada/forge/?format=csv").content.decode())))
    assert [uploads[0][key] for key in ("tokens", "tokens_input", "tokens_output")] == ["2000", "1500", "400"]
    board = list(csv.DictReader(io.StringIO(client.get("/boards/agents/cpu/?format=csv").content.decode())))
    assert (board[0]["cost_usd"], board[0]["tokens"]) == ("4.5", "2000")
    page = client.get("/boards/agents/cpu/").content.decode()
    assert '<a href="/boards/agents/cpu/?sort=-tokens">tokens</a>' in page
