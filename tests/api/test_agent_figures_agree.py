"""An upload's figures are defined once (evaluator/scoring/suite.py, docs/scoring.md "Agent suites"):
the agent submission's `suites`, its results, the agent board (API and CSV, by task type too) and
the agent page's CSV (by problem too) give the same suite score and solved counts, visible and
hidden scores, generalization, correctness and speed gaps, whatever its evaluations did (scored,
partly passed, all failed, a reward hack, failed on the platform, a problem left out)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from evaluator.models import Evaluation
from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db

# worked out by hand from docs/scoring.md: a scores 0.7 (visible 0.75, hidden 0.6, all passed), b 0.45
# (visible 0.9, its hidden workload failed); c to f count 0; the per-problem gaps a 0.15 / 0 / 0.15
# and b 0.9 / 1 / none (generalization / correctness / speed)
SUITE = {"problems": 6, "attempted": 5, "solved": 2, "solved_visible": 2, "solved_all": 1,
         "score": (0.7 + 0.45) / 6, "visible_score": (0.75 + 0.9) / 6, "hidden_score": 0.6 / 6,
         "generalization_gap": (0.75 + 0.9 - 0.6) / 6, "correctness_gap": (0 + 1) / 2, "speed_gap": 0.15,
         "conditional_correctness": (1 + 0) / 2}
PROBLEM_FIGURES = ("score", "visible_score", "hidden_score", "generalization_gap", "correctness_gap",
                   "speed_gap", "conditional_correctness", "solved_visible", "solved_all")


def number(text: str) -> Any:
    """A CSV cell as the JSON would give it."""
    words = {"": None, "True": True, "False": False}
    return words[text] if text in words else float(text)


def rows(client: Client, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    assert response.status_code == 200, url
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def same(reading: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    for name, value in expected.items():
        got = reading[name]
        got = number(got) if isinstance(got, str) else got
        assert got == (value if value is None or isinstance(value, bool) else pytest.approx(value)), (
            where, name, got, value)


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
    for where, reading in (("results", here["suite"]), ("board", entry), ("page csv", line)):
        same(reading, SUITE, where)
    [board_line] = rows(client, "/boards/agents/cpu/?format=csv")
    same(board_line, {k: v for k, v in SUITE.items() if k not in ("problems", "attempted")}, "board csv")
    [by_type] = here["task_types"]
    [board_by_type] = rows(client, "/boards/agents/cpu/?format=csv&by=task_type")
    assert by_type["task_type"] == board_by_type["task_type"] == entry["task_types"][0]["task_type"]
    for where, reading in (("results by type", by_type), ("board by type", entry["task_types"][0]),
                           ("board csv by type", board_by_type)):
        same(reading, SUITE, where)  # every problem is of the one task type

    per_problem = {row["problem"]: row for row in here["problems"]}
    same(per_problem["a"], {"score": 0.7, "visible_score": 0.75, "hidden_score": 0.6,
                            "generalization_gap": 0.15, "correctness_gap": 0.0, "speed_gap": 0.15,
                            "solved_all": True}, "a")
    same(per_problem["b"], {"score": 0.45, "visible_score": 0.9, "hidden_score": 0.0,
                            "generalization_gap": 0.9, "correctness_gap": 1.0, "speed_gap": None,
                            "solved_visible": True, "solved_all": False}, "b")
    for url in ("/agents/ada/forge/?format=csv&by=problem", "/boards/agents/cpu/?format=csv&by=problem"):
        downloaded = {row["problem"]: row for row in rows(client, url)}
        assert set(downloaded) == set(per_problem) == {"a", "b", "c", "d", "e", "f"}
        for name, row in per_problem.items():
            same(downloaded[name], {figure: row[figure] for figure in PROBLEM_FIGURES}, f"{url} {name}")
    outcomes = {row["problem"]: row["outcome"] for row in here["problems"]}
    assert outcomes == {"a": "scored", "b": "scored, 1 of 2 workloads passed",
                        "c": "incorrect on every workload", "d": "flagged: reward hack",
                        "e": "failed on the platform", "f": "left out"}
