"""/boards/agents/<hardware>/frontier/: each listed upload with a cost drawn at its cost and suite
score as inline SVG (no script), the frontier marked, drawn as a staircase and listed in a table;
uploads with no cost listed apart, not plotted; the agent board links here."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client

from leaderboard.models import Hardware
from pages.frontier_chart import Upload, frontier_plot
from tests.api.test_agent_frontier_api import make_uploads
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
PAGE = "/boards/agents/cpu/frontier/"


def test_the_chart_the_frontier_and_the_uncosted(client: Client, cpu: Hardware) -> None:
    make_uploads(cpu)
    response = client.get(PAGE)
    assert response.status_code == 200
    body = response.content.decode()
    chart = body[body.index("<svg"):body.index("</svg>")]
    assert "<script" not in body[body.index("<main>"):]
    assert chart.count("<circle") == 3  # cheap, better, dear; free gives no cost, the test run is private
    assert chart.count('class="upload on-frontier"') == 2 and chart.count("point dominated") == 1
    assert re.search(r'<path class="line frontier-line" d="M[\d.]+,[\d.]+H[\d.]+V[\d.]+H608"', chart)
    assert "cost (USD, log scale)" in chart  # $1 to $10: a decade
    assert ">forge 1.0<" in chart and ">forge 1.1<" in chart and ">tuner 0.1<" not in chart
    frontier = body[body.index('id="frontier"'):body.index('id="no-cost"')]
    rows = re.findall(r"<tr>(.*?)</tr>", frontier.split("<tbody>")[1], re.S)
    cells = [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
             for r in rows]
    assert [row[:8] for row in cells] == [["4", "forge", "1.0", "a-model", "ada", "0.225", "1", "1000"],
                                          ["2", "forge", "1.1", "a-model", "ada", "0.400", "4.5", "5000"]]
    no_cost = body[body.index('id="no-cost"'):]
    assert "free 1.0 (a-model) by cy: suite score 0.450" in no_cost
    assert 'href="/api/v1/agents/frontier/?hardware=cpu"' in body


def test_names_are_escaped_and_an_empty_board_says_so(client: Client, cpu: Hardware) -> None:
    assert "No upload on this board gives a cost yet." in client.get(PAGE).content.decode()
    cache.clear()  # the page is kept a while for anonymous visitors
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    factories.make_agent_upload(factories.make_participant("eve"), "<b>x</b>",
                                {gemm: workload_aggregates([0.9], [0.9])}, cpu, cost_usd=2)
    body = client.get(PAGE).content.decode()
    assert "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt; 1.0" in body
    assert "cost (USD)" in body and "log scale" not in body
    assert client.get("/boards/agents/tpu/frontier/").status_code == 404


def test_the_agent_board_links_to_it(client: Client, cpu: Hardware) -> None:
    assert f'href="{PAGE}"' in client.get("/boards/agents/cpu/").content.decode()


def test_a_wide_spread_of_costs_goes_on_a_log_axis_and_a_narrow_one_from_zero() -> None:
    wide = frontier_plot([Upload(0.05, 0.2, "a", "", True), Upload(80, 0.6, "b", "", True)])
    assert wide is not None and wide.log_scale
    assert [tick.label for tick in wide.x_ticks] == ["$0.1", "$1", "$10", "$100"]
    narrow = frontier_plot([Upload(0, 0.2, "a", "", True), Upload(3, 0.6, "b", "", False)])
    assert narrow is not None and not narrow.log_scale
    assert [tick.label for tick in narrow.x_ticks] == ["$0", "$1.25", "$2.5", "$3.75", "$5"]
    assert narrow.line.endswith(f"H{narrow.right}") and "V" not in narrow.line  # one frontier point
    assert frontier_plot([]) is None
