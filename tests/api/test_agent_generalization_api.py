"""The agent board and an upload's results in the API put generalization first: per upload, the suite
score, visible and hidden scores, the gap split into a correctness gap and a speed gap, conditional
correctness and the problems solved on every workload, over the suite and per task type; one call
gives a whole upload problem by problem (left-out problems named), readable by anyone once listed."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
BOARD = "/api/v1/leaderboards/agents/"


@pytest.fixture
def suite(db: Any) -> dict[str, Problem]:
    return {"gemm": factories.make_named_problem("gemm", task_type="from_reference"),
            "softmax": factories.make_named_problem("softmax", task_type="from_reference"),
            "norm": factories.make_named_problem("norm", task_type="optimize_triton")}


def upload(suite: dict[str, Problem], cpu: Hardware, **fields: Any) -> Any:
    """gemm passes every hidden shape but slower; softmax is right on the visible shapes only; norm is
    left out."""
    return factories.make_agent_upload(factories.make_participant("ada"), "forge", {
        suite["gemm"]: workload_aggregates([0.8, 0.8], [0.6, 0.5, 0.55]),
        suite["softmax"]: workload_aggregates([0.9, 0.9], [None, None])}, cpu, version="1.0", **fields)


def test_one_call_gives_an_upload_problem_by_problem(suite: dict[str, Problem], cpu: Hardware) -> None:
    agent = upload(suite, cpu, cost_usd=12.5)
    response = client_for(None).get(f"/api/v1/agent-submissions/{agent.pk}/results/")
    assert response.status_code == 200, response.content
    document = response.json()
    assert (document["agent"], document["version"], document["user"], document["cost_usd"]) == (
        "forge", "1.0", "ada", 12.5)
    [here] = document["hardware"]
    assert (here["hardware"], here["status"], here["missing_problems"]) == ("cpu", "done", ["norm"])
    suite_figures = here["suite"]
    assert (suite_figures["problems"], suite_figures["attempted"], suite_figures["solved"]) == (3, 2, 2)
    assert (suite_figures["solved_visible"], suite_figures["solved_all"]) == (2, 1)
    assert suite_figures["score"] == pytest.approx((0.65 + 0.45) / 3)
    assert suite_figures["correctness_gap"] == pytest.approx(0.5)  # softmax 1, gemm 0
    assert suite_figures["speed_gap"] == pytest.approx(0.25)  # gemm only: softmax passed no hidden one
    rows = {row["problem"]: row for row in here["problems"]}
    assert rows["gemm"]["correctness_gap"] == 0.0 and rows["gemm"]["speed_gap"] == pytest.approx(0.25)
    assert rows["gemm"]["solved_all"] is True and rows["gemm"]["outcome"] == "scored"
    assert (rows["softmax"]["hidden_passed"], rows["softmax"]["hidden_total"]) == (0, 2)
    assert rows["softmax"]["outcome"] == "scored, 2 of 4 workloads passed"
    left_out = rows["norm"]
    assert (left_out["outcome"], left_out["submission"], left_out["score"]) == ("left out", None, 0.0)
    types = {t["task_type"]: t for t in here["task_types"]}
    assert list(types) == ["from_reference", "optimize_triton"]
    assert types["from_reference"]["score"] == pytest.approx((0.65 + 0.45) / 2)
    assert (types["optimize_triton"]["attempted"], types["optimize_triton"]["score"]) == (0, 0.0)


def test_the_board_gives_each_uploads_figures_and_its_task_types(suite: dict[str, Problem],
                                                                 cpu: Hardware) -> None:
    agent = upload(suite, cpu)
    document = client_for(None).get(BOARD, {"hardware": "cpu"}).json()
    [entry] = document["entries"]
    assert (entry["agent_submission"], entry["solved_all"]) == (agent.pk, 1)
    assert entry["missing_problems"] == ["norm"]
    assert entry["correctness_gap"] == pytest.approx(0.5) and entry["speed_gap"] == pytest.approx(0.25)
    assert [t["task_type"] for t in entry["task_types"]] == ["from_reference", "optimize_triton"]
    assert "results" not in entry
    with_problems = client_for(None).get(BOARD, {"hardware": "cpu", "problems": "1"}).json()["entries"][0]
    assert [row["problem"] for row in with_problems["results"]] == ["gemm", "norm", "softmax"]
    by_type = client_for(None).get(BOARD, {"hardware": "cpu", "task_type": "from_reference"}).json()
    assert (by_type["task_type"], by_type["problems"]) == ("from_reference", 2)
    assert by_type["entries"][0]["score"] == pytest.approx((0.65 + 0.45) / 2)
    # an upload with no solution of the task type is not on that board
    triton = client_for(None).get(BOARD, {"hardware": "cpu", "task_type": "optimize_triton"}).json()
    assert triton["entries"] == []
    bad = client_for(None).get(BOARD, {"hardware": "cpu", "task_type": "triton"})
    assert bad.status_code == 400 and "unknown task type 'triton'" in bad.json()["task_type"][0]
    assert client_for(None).get(BOARD, {"hardware": "cpu", "problems": "yes"}).status_code == 400


def test_a_private_upload_is_its_owners_alone(suite: dict[str, Problem], cpu: Hardware) -> None:
    agent = upload(suite, cpu, mode="test")
    url = f"/api/v1/agent-submissions/{agent.pk}/results/"
    assert client_for(None).get(url).status_code == 404
    assert client_for(factories.make_participant()).get(url).status_code == 404
    assert client_for(agent.owner).get(url).status_code == 200
    assert client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"] == []
    missing = client_for(None).get("/api/v1/agent-submissions/999999/results/")
    assert missing.status_code == 404 and missing.json()["detail"] == "no agent submission #999999"


def test_an_agents_uploads_are_one_document(suite: dict[str, Problem], cpu: Hardware) -> None:
    first = upload(suite, cpu)
    norm_only = {suite["norm"]: workload_aggregates([0.7], [0.7])}
    later = factories.make_agent_upload(first.owner, "forge", norm_only, cpu, version="1.1")
    document = client_for(None).get("/api/v1/agents/", {"user": "ada", "agent": "forge"}).json()
    assert [u["id"] for u in document["uploads"]] == [later.pk, first.pk]
    assert document["uploads"][0]["hardware"][0]["missing_problems"] == ["gemm", "softmax"]
    unknown = client_for(None).get("/api/v1/agents/", {"user": "ada", "agent": "nobody"})
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == "no agent named 'nobody' was uploaded by 'ada'"
    assert client_for(None).get("/api/v1/agents/", {"user": "ada"}).json() == {"agent": ["required"]}
