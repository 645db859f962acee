"""The home page: the leader of every category x hardware board, the latest scored submissions and
the counts of problems, participants and agents; a task-type filter."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evaluator.models import Evaluation
from leaderboard.models import Hardware
from tests.platform import factories

pytestmark = pytest.mark.django_db


def cells(content: str) -> dict[str, str]:
    """Each overview cell's link -> its text."""
    overview = content[content.index('<table class="overview">'):]
    overview = overview[:overview.index("</table>")]
    return {url: " ".join(re.sub(r"<[^>]+>", " ", text).split())
            for url, text in re.findall(r'<td><a href="([^"]+)">(.*?)</a></td>', overview)}


def test_leaders_counts_and_recent(client: Client, cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    gemm, norm = factories.make_named_problem("gemm"), factories.make_named_problem("norm")
    quant = factories.make_named_problem("quant", category="quant", task_type="optimize_triton")
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    factories.make_agent_run(ada, "kernelsmith", {gemm: 0.5}, cpu)
    factories.make_agent_run(ada, "kernelsmith", {gemm: 0.6}, cpu, version="2")
    factories.make_scored(ada, gemm, cpu, 0.9)
    factories.make_scored(bob, gemm, cpu, 0.5)
    factories.make_scored(bob, norm, cpu, 0.5)  # bob: (0.5 + 0.5) / 2 beats ada's 0.9 / 2
    factories.make_scored(ada, quant, h200, 0.3)
    factories.make_scored(bob, quant, h200, 0.0, verdict="RUNTIME_ERROR")
    hack = factories.make_scored(factories.make_participant("cheat"), norm, cpu, 1.0, verdict="REWARD_HACK")

    content = client.get("/").content.decode()
    assert cells(content) == {
        "/boards/categories/l1/cpu/": "bob 0.500", "/boards/categories/l1/h200/": "no leader yet",
        "/boards/categories/quant/cpu/": "no leader yet", "/boards/categories/quant/h200/": "ada 0.300"}
    counts = re.findall(r"<strong>(\d+)</strong>(\w+)", content)
    assert counts == [("3", "problems"), ("3", "participants"), ("1", "agent")]
    recent = content[content.index("Recently scored"):]
    assert recent.index("quant") < recent.index("gemm")  # newest first
    assert 'href="/boards/problems/quant/h200/"' in recent and "cheat" not in recent
    assert Evaluation.objects.get(pk=hack.pk).reward_hack
    assert 'href="/boards/agents/h200/"' in content


def test_task_type_filter(client: Client, cpu: Hardware) -> None:
    plain = factories.make_named_problem("plain")
    tuned = factories.make_named_problem("tuned", task_type="optimize_triton")
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    factories.make_scored(ada, plain, cpu, 0.9)
    factories.make_scored(bob, tuned, cpu, 0.4)
    assert cells(client.get("/").content.decode()) == {"/boards/categories/l1/cpu/": "ada 0.450"}
    content = client.get("/", {"task_type": "optimize_triton"}).content.decode()
    assert cells(content) == {"/boards/categories/l1/cpu/?task_type=optimize_triton": "bob 0.400"}
    assert re.findall(r"<strong>(\d+)</strong>problem", content) == ["1"]
    refused = client.get("/", {"task_type": "golf"})
    assert refused.status_code == 400 and "golf" in refused.content.decode()


def test_queued_but_nothing_scored(client: Client, cpu: Hardware) -> None:
    factories.make_evaluation(hardware=cpu)
    content = client.get("/").content.decode()
    assert "Evaluations are queued or running; none is scored yet." in content
    assert "no leader yet" in content
