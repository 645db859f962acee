"""An upload's suite score and solved count are defined once (evaluator/scoring/suite.py): the agent
submission's `suites`, its results, the agent board and the agent page's CSV give the same numbers,
whatever its evaluations did (scored, partly passed, all failed, a reward hack, failed on the
platform, a problem left out)."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from evaluator.models import Evaluation
from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db


def test_every_reading_of_an_upload_agrees(client: Client, cpu: Hardware) -> None:
    problems = [factories.make_named_problem(name) for name in ("a", "b", "c", "d", "e", "f")]
    owner = factories.make_participant("ada")
    agent = factories.make_agent_upload(owner, "forge", {
        problems[0]: workload_aggregates([0.8, 0.7], [0.6]), problems[1]: workload_aggregates([0.9], [None]),
        problems[2]: workload_aggregates([None], [None]), problems[3]: workload_aggregates([0.9], [0.9]),
        problems[4]: None}, cpu)  # f is left out
    Evaluation.objects.filter(submission__agent_submission=agent, submission__problem=problems[3]).update(
        reward_hack=True)
    [suite] = client_for(owner).get(f"/api/v1/agent-submissions/{agent.pk}/").json()["suites"]
    [here] = client_for(None).get(f"/api/v1/agent-submissions/{agent.pk}/results/").json()["hardware"]
    [entry] = client_for(None).get("/api/v1/leaderboards/agents/", {"hardware": "cpu"}).json()["entries"]
    [line] = csv.DictReader(io.StringIO(client.get("/agents/ada/forge/?format=csv").content.decode()))
    expected = (0.7 + 0.45) / 6
    assert suite["score"] == pytest.approx(expected) and (suite["scored"], suite["problems"]) == (2, 6)
    assert here["suite"]["score"] == pytest.approx(expected) and here["suite"]["solved"] == 2
    assert entry["score"] == pytest.approx(expected) and entry["solved"] == 2
    assert float(line["score"]) == pytest.approx(expected) and line["solved"] == "2"
    outcomes = {row["problem"]: row["outcome"] for row in here["problems"]}
    assert outcomes == {"a": "scored", "b": "scored, 1 of 2 workloads passed",
                        "c": "incorrect on every workload", "d": "flagged: reward hack",
                        "e": "failed on the platform", "f": "left out"}
