"""The agent endpoints carry the CPU's timing note as the boards' do (the Triton interpreter's times
say nothing of a GPU): the agent board, its frontier, two uploads compared, and each hardware of an
upload's results and of an agent's document; a GPU's note is empty."""

from __future__ import annotations

import pytest

from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
NOTE = "say nothing of a GPU's speed"


def test_every_agent_endpoint_carries_the_cpu_note(cpu: Hardware) -> None:
    gemm = factories.make_named_problem("gemm")
    ada = factories.make_participant("ada")
    a = factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [0.5])}, cpu,
                                    cost_usd=1.0)
    b = factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [0.7])}, cpu,
                                    version="2")
    api = client_for(None)
    documents = {
        "board": api.get("/api/v1/leaderboards/agents/", {"hardware": "cpu"}).json(),
        "frontier": api.get("/api/v1/agents/frontier/", {"hardware": "cpu"}).json(),
        "compare": api.get("/api/v1/agent-submissions/compare/", {"a": a.pk, "b": b.pk}).json(),
        "results": api.get(f"/api/v1/agent-submissions/{a.pk}/results/").json()["hardware"][0],
        "agent": api.get("/api/v1/agents/", {"user": "ada", "agent": "forge"}).json()["uploads"][0][
            "hardware"][0],
    }
    for name, document in documents.items():
        assert document["hardware"] == "cpu" and NOTE in document["timing_note"], name


def test_a_gpu_board_carries_an_empty_note(cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    gemm = factories.make_named_problem("gemm")
    factories.make_agent_upload(factories.make_participant("ada"), "forge",
                                {gemm: workload_aggregates([0.9], [0.5])}, h200)
    api = client_for(None)
    assert api.get("/api/v1/leaderboards/agents/", {"hardware": "h200"}).json()["timing_note"] == ""
    assert api.get("/api/v1/agents/frontier/", {"hardware": "h200"}).json()["timing_note"] == ""
