"""/agents/<owner>/<agent>/compare/?a=&b=: two uploads of an agent problem by problem, b minus a, over
the suite and per task type; its JSON is the API's; bad choices are refused naming what there is."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Hardware
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
COMPARE = "/agents/ada/forge/compare/"


@pytest.fixture
def uploads(cpu: Hardware) -> tuple[Any, Any]:
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    norm = factories.make_named_problem("norm", task_type="optimize_triton")
    ada = factories.make_participant("ada")
    first = factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [None])}, cpu,
                                        version="1.0")
    both = {gemm: workload_aggregates([0.9], [0.7]), norm: workload_aggregates([0.4], [0.4])}
    later = factories.make_agent_upload(ada, "forge", both, cpu, version="2.0")
    return first, later


def rows(body: str, section: str) -> dict[str, list[str]]:
    found = re.search(rf'<section id="{section}">(.*?)</section>', body, re.S)
    assert found is not None
    table = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", found.group(1), re.S):
        found_cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        texts = [re.sub(r"<[^>]+>", "", cell).strip() for cell in found_cells]
        table[texts[0]] = texts[1:]
    return table


def test_two_uploads_side_by_side_with_deltas(client: Client, uploads: tuple[Any, Any]) -> None:
    first, later = uploads
    response = client.get(COMPARE, {"a": first.pk, "b": later.pk})
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h2><a href=\"/agents/ada/forge/\">forge</a>: 1.0 against 2.0</h2>" in body
    suite = rows(body, "suite")
    assert suite["b − a"][3:7] == ["+0.375", "+1", "+1", "+2"]  # score, solved, all visible, all workloads
    problems = rows(body, "problems")
    assert problems["gemm"][-2:] == ["+0.700", "visible only -&gt; all workloads"]
    assert problems["norm"][1:3] == ["left out", "scored"]
    assert rows(body, "task-types")["optimize_triton"][:3] == ["0", "0.400", "+0.400"]
    assert ("b ranks above a on 2 problems and below it on 0 (correct on every workload first, then the "
            "score).") in body
    assert f"/api/v1/agent-submissions/compare/?a={first.pk}&amp;b={later.pk}&amp;hardware=cpu" in body


def test_bad_choices_are_refused_naming_the_uploads(client: Client, uploads: tuple[Any, Any],
                                                    cpu: Hardware) -> None:
    first, later = uploads
    known = f"its uploads are {later.pk} (2.0), {first.pk} (1.0)."
    missing = client.get(COMPARE, {"a": first.pk})
    assert missing.status_code == 400 and f"give b=&lt;upload id&gt;; {known}" in missing.content.decode()
    other = factories.make_agent_upload(factories.make_participant("bob"), "forge", {}, cpu)
    foreign = client.get(COMPARE, {"a": first.pk, "b": other.pk})
    assert foreign.status_code == 400
    assert f"b=&#x27;{other.pk}&#x27; is not an upload of this agent" in foreign.content.decode()
    elsewhere = client.get(COMPARE, {"a": first.pk, "b": later.pk, "hardware": "h200"})
    assert elsewhere.status_code == 400
    assert "cannot compare: both did not run on h200" in elsewhere.content.decode()
    assert client.get("/agents/ada/nobody/compare/", {"a": 1, "b": 2}).status_code == 404
    unknown_parameter = client.get(COMPARE, {"a": first.pk, "b": later.pk, "x": "1"})
    assert unknown_parameter.status_code == 302  # to the page without it (pages.page_cache)
