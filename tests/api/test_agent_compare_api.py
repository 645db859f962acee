"""GET /api/v1/agent-submissions/compare/?a=&b=: two uploads problem by problem on one hardware, b
minus a, over the suite and per task type; uploads a caller may not read are missing, and uploads
that share no hardware are refused naming where each ran."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
COMPARE = "/api/v1/agent-submissions/compare/"


@pytest.fixture
def suite(db: Any) -> dict[str, Problem]:
    return {"gemm": factories.make_named_problem("gemm", task_type="from_reference"),
            "norm": factories.make_named_problem("norm", task_type="optimize_triton")}


def test_two_uploads_problem_by_problem(suite: dict[str, Problem], cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    a = factories.make_agent_upload(ada, "forge", {suite["gemm"]: workload_aggregates([0.9], [None])}, cpu,
                                    version="1.0")
    b = factories.make_agent_upload(ada, "forge", {suite["gemm"]: workload_aggregates([0.9], [0.7]),
                                                   suite["norm"]: workload_aggregates([0.4], [0.4])}, cpu,
                                    version="2.0")
    response = client_for(None).get(COMPARE, {"a": a.pk, "b": b.pk})
    assert response.status_code == 200, response.content
    document = response.json()
    assert (document["hardware"], document["a"]["version"], document["b"]["version"]) == ("cpu", "1.0", "2.0")
    assert (document["improved"], document["worse"]) == (2, 0)
    assert document["delta"]["solved_all"] == 2 and document["delta"]["score"] == pytest.approx(
        ((0.8 + 0.4) - 0.45) / 2)
    rows = {row["problem"]: row for row in document["problems"]}
    assert rows["gemm"]["change"] == "visible only -> all workloads"
    assert rows["gemm"]["hidden_delta"] == pytest.approx(0.7)
    assert rows["norm"]["a"]["outcome"] == "left out"
    assert rows["norm"]["change"] == "left out -> all workloads"
    types = {t["task_type"]: t for t in document["task_types"]}
    assert types["optimize_triton"]["delta"]["score"] == pytest.approx(0.4)


def test_what_cannot_be_compared_is_refused(suite: dict[str, Problem], cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    passed = {suite["gemm"]: workload_aggregates([0.9], [0.9])}
    a = factories.make_agent_upload(ada, "forge", passed, cpu)
    h200 = factories.make_hardware("h200")
    elsewhere = factories.make_agent_upload(ada, "forge", passed, h200, version="2.0")
    private = factories.make_agent_upload(ada, "forge", passed, cpu, version="3.0", mode="test")
    apart = client_for(None).get(COMPARE, {"a": a.pk, "b": elsewhere.pk})
    assert apart.status_code == 400
    assert apart.json()["hardware"] == [
        f"cannot compare: they share no hardware; upload #{a.pk} (forge 1.0) ran on cpu and upload "
        f"#{elsewhere.pk} (forge 2.0) ran on h200"]
    asked = client_for(None).get(COMPARE, {"a": a.pk, "b": a.pk, "hardware": "h200"})
    assert asked.status_code == 400 and "both did not run on h200" in asked.json()["hardware"][0]
    assert client_for(None).get(COMPARE, {"a": a.pk, "b": private.pk}).status_code == 404
    assert client_for(ada).get(COMPARE, {"a": a.pk, "b": private.pk}).status_code == 200
    bad = client_for(None).get(COMPARE, {"a": "x", "b": a.pk})
    assert bad.status_code == 400
    assert bad.json() == {"a": ["an agent submission's id (a whole number), not 'x'"]}
    assert client_for(None).get(COMPARE, {"a": a.pk}).json() == {"b": ["required: an agent submission's id"]}
