"""The agent board and the agent compare rank correct first, as the problem boards do (issue 38):
an upload that fails hidden workloads ranks below one that passes them all, whatever its higher
score, and compare calls the correct one better."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
BOARD = "/api/v1/leaderboards/agents/"
COMPARE = "/api/v1/agent-submissions/compare/"


@pytest.fixture
def versions(cpu: Hardware) -> tuple[Any, Any]:
    """The issue's case: rmsnorm v1 passes its 3 visible workloads and fails both hidden ones
    (0.00279), v1.1 passes all 5 at a lower score (0.00234)."""
    rmsnorm = factories.make_named_problem("rmsnorm", task_type="from_reference")
    ada = factories.make_participant("ada")
    overfitted = factories.make_agent_upload(
        ada, "forge", {rmsnorm: workload_aggregates([0.00465] * 3, [None] * 2)}, cpu, version="1")
    correct = factories.make_agent_upload(
        ada, "forge", {rmsnorm: workload_aggregates([0.00234] * 5, [])}, cpu, version="1.1")
    return overfitted, correct


def test_the_board_ranks_the_correct_upload_first(versions: tuple[Any, Any]) -> None:
    entries = client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"]
    assert [(e["rank"], e["version"], round(e["score"], 5), e["solved_all"]) for e in entries] == [
        (1, "1.1", 0.00234, 1), (2, "1", 0.00279, 0)]
    assert entries[1]["score"] > entries[0]["score"]  # the higher score ranks below


def test_compare_calls_the_correct_upload_better_either_way_round(versions: tuple[Any, Any]) -> None:
    overfitted, correct = versions
    forward = client_for(None).get(COMPARE, {"a": overfitted.pk, "b": correct.pk})
    assert forward.status_code == 200, forward.content
    document = forward.json()
    assert document["delta"]["score"] < 0  # b scores lower ...
    assert (document["better"], document["improved"], document["worse"]) == ("b", 1, 0)  # ... and is better
    [problem] = document["problems"]
    assert (problem["better"], problem["change"]) == ("b", "visible only -> all workloads")
    backward = client_for(None).get(COMPARE, {"a": correct.pk, "b": overfitted.pk}).json()
    assert (backward["better"], backward["improved"], backward["worse"]) == ("a", 0, 1)
    assert backward["problems"][0]["better"] == "a"


def test_between_two_correct_uploads_the_score_decides(cpu: Hardware) -> None:
    rmsnorm = factories.make_named_problem("rmsnorm", task_type="from_reference")
    ada = factories.make_participant("ada")
    slow = factories.make_agent_upload(ada, "forge", {rmsnorm: workload_aggregates([0.2], [0.2])}, cpu)
    fast = factories.make_agent_upload(ada, "forge", {rmsnorm: workload_aggregates([0.4], [0.4])}, cpu,
                                       version="2.0")
    same = factories.make_agent_upload(ada, "forge", {rmsnorm: workload_aggregates([0.4], [0.4])}, cpu,
                                       version="3.0")
    entries = client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"]
    assert [e["version"] for e in entries] == ["2.0", "3.0", "1.0"]  # equal scores: the earlier upload
    assert client_for(None).get(COMPARE, {"a": slow.pk, "b": fast.pk}).json()["better"] == "b"
    level = client_for(None).get(COMPARE, {"a": fast.pk, "b": same.pk}).json()
    assert (level["better"], level["improved"], level["worse"]) == (None, 0, 0)
