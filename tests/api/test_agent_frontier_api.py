"""GET /api/v1/agents/frontier/?hardware=: the agent board's uploads at their suite score and cost,
split into the frontier (cheapest first), the uploads it beats and those whose manifest gives no
cost; only listed uploads count, and a missing or unknown hardware is refused."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
FRONTIER = "/api/v1/agents/frontier/"


def make_uploads(cpu: Hardware) -> dict[str, Any]:
    """Suite scores over gemm and norm: cheap 0.225 for $1, better 0.4 for $4.5, dear 0.3 for $10 (beaten
    by better on both counts), free 0.45 with no cost given, and a private test run at $0.1."""
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    norm = factories.make_named_problem("norm", task_type="optimize_triton")
    ada, bob, cy = (factories.make_participant(name) for name in ("ada", "bob", "cy"))
    return {
        "cheap": factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [None])}, cpu,
                                             version="1.0", cost_usd=1.0, tokens_input=800,
                                             tokens_output=200),
        "better": factories.make_agent_upload(ada, "forge", {gemm: workload_aggregates([0.9], [0.7])}, cpu,
                                              version="1.1", cost_usd=4.5, tokens=5000),
        "dear": factories.make_agent_upload(bob, "tuner", {norm: workload_aggregates([0.6], [0.6])}, cpu,
                                            version="0.1", cost_usd=10),
        "free": factories.make_agent_upload(cy, "free", {norm: workload_aggregates([0.9], [0.9])}, cpu),
        "test": factories.make_agent_upload(cy, "free", {gemm: workload_aggregates([1.0], [1.0])}, cpu,
                                            version="t", cost_usd=0.1, mode="test"),
    }


def test_the_frontier_the_beaten_and_the_uncosted(cpu: Hardware) -> None:
    made = make_uploads(cpu)
    response = client_for(None).get(FRONTIER, {"hardware": "cpu"})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["hardware"], body["problems"]) == ("cpu", 2)
    assert [e["agent_submission"] for e in body["frontier"]] == [made["cheap"].pk, made["better"].pk]
    assert [e["agent_submission"] for e in body["dominated"]] == [made["dear"].pk]
    assert [e["agent_submission"] for e in body["no_cost"]] == [made["free"].pk]  # the test run is private
    cheap, better = body["frontier"]
    assert (cheap["score"], cheap["cost_usd"], cheap["rank"], cheap["on_frontier"]) == (0.225, 1.0, 4, True)
    assert (cheap["tokens"], cheap["tokens_input"], cheap["tokens_output"]) == (1000, 800, 200)
    assert (better["tokens"], better["tokens_input"]) == (5000, None)
    assert body["dominated"][0]["on_frontier"] is False and body["no_cost"][0]["cost_usd"] is None


def test_the_board_entries_carry_tokens(cpu: Hardware) -> None:
    made = make_uploads(cpu)
    entries = client_for(None).get("/api/v1/leaderboards/agents/", {"hardware": "cpu"}).json()["entries"]
    cheap = next(e for e in entries if e["agent_submission"] == made["cheap"].pk)
    assert (cheap["cost_usd"], cheap["tokens"], cheap["tokens_input"], cheap["tokens_output"]) == (
        1.0, 1000, 800, 200)


def test_no_upload_no_frontier_and_bad_hardware_refused(cpu: Hardware) -> None:
    empty = client_for(None).get(FRONTIER, {"hardware": "cpu"}).json()
    assert "not a GPU" in empty.pop("timing_note")  # tests/api/test_cpu_timing_note_api.py
    assert empty == {"hardware": "cpu", "problems": 0, "frontier": [], "dominated": [], "no_cost": []}
    missing = client_for(None).get(FRONTIER)
    assert missing.status_code == 400 and missing.json() == {"hardware": ["give ?hardware=<slug>"]}
    assert client_for(None).get(FRONTIER, {"hardware": "tpu"}).status_code == 404
