"""GET /api/v1/compare/: two submissions of one problem side by side on one hardware, per visible
workload both ran (times, scores, ratio); hidden workloads only as each side's aggregate; clear
errors for two problems, no shared or an ambiguous hardware, an unknown id."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem, Workload
from tests.api.support import client_for
from tests.api.test_agent_submissions_api import another_problem
from tests.platform import factories

pytestmark = pytest.mark.django_db
COMPARE = "/api/v1/compare/"


def scored(problem: Problem, hardware: Hardware, latency: float, score: float,
           user: Any = None) -> Evaluation:
    evaluation = factories.make_evaluation(owner=user, problem=problem, hardware=hardware)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation, score=score)
    for row in report["workloads"]:
        row["latency_ms"] = latency
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    return evaluation


def test_visible_workloads_side_by_side_hidden_as_aggregates(problem: Problem, cpu: Hardware) -> None:
    a = scored(problem, cpu, latency=2.0, score=0.4)
    b = scored(problem, cpu, latency=1.0, score=0.6)
    response = client_for(None).get(COMPARE, {"a": a.submission_id, "b": b.submission_id})
    assert response.status_code == 200, response.json()
    document = response.json()
    visible = list(Workload.objects.filter(problem=problem, visibility=Workload.VISIBLE, smoke=True)
                   .order_by("position").values_list("uuid", flat=True))
    assert [pair["uuid"] for pair in document["workloads"]] == visible  # no hidden row
    assert all(pair["latency_ratio"] == pytest.approx(0.5) for pair in document["workloads"])
    assert all(pair["score_delta"] == pytest.approx(0.2) for pair in document["workloads"])
    assert document["faster_in_b"] == len(visible) and document["geomean_latency_ratio"] == pytest.approx(0.5)
    assert document["hardware"] == "cpu" and document["problem"] == problem.name
    assert document["a"]["hidden"]["total"] > 0 and document["b"]["submission"] == b.submission_id


def test_cannot_compare_is_said_plainly(problem: Problem, cpu: Hardware) -> None:
    a = scored(problem, cpu, latency=1.0, score=0.5)
    client = client_for(None)
    assert client.get(COMPARE, {"a": a.submission_id, "b": 999999}).status_code == 404
    missing = client.get(COMPARE, {"a": a.submission_id})
    assert missing.status_code == 400 and missing.json()["b"] == ["required"]
    h200 = factories.make_hardware("h200")
    b = scored(problem, h200, latency=1.0, score=0.5)
    apart = client.get(COMPARE, {"a": a.submission_id, "b": b.submission_id}).json()
    assert apart["detail"] == [f"#{a.submission_id} and #{b.submission_id} share no hardware: "
                               f"#{a.submission_id} ran on cpu, #{b.submission_id} on h200"]
    both = factories.make_evaluation(problem=problem, hardware=cpu)
    Evaluation.objects.create(submission=both.submission, hardware=h200, seed=1)
    c = scored(problem, h200, latency=1.0, score=0.5)
    Evaluation.objects.create(submission=c.submission, hardware=cpu, seed=2)
    ambiguous = client.get(COMPARE, {"a": both.submission_id, "b": c.submission_id}).json()
    assert "both ran on cpu, h200: name one (hardware)" in ambiguous["detail"][0]
    chosen = client.get(COMPARE, {"a": both.submission_id, "b": c.submission_id, "hardware": "h200"})
    assert chosen.status_code == 200 and chosen.json()["hardware"] == "h200"
    d = factories.make_evaluation(problem=another_problem("other_problem"), hardware=cpu)
    two = client.get(COMPARE, {"a": a.submission_id, "b": d.submission_id}).json()
    assert two["detail"] == [f"#{a.submission_id} is for {problem.name}, #{d.submission_id} for "
                             "other_problem: compare submissions of one problem"]
