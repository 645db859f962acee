"""A test or profile run times nothing, so it has no score: its submission page shows a dash where
a ranked or benchmark run shows its score, and the API and the stored aggregates say null, not 0
(docs/evaluations.md, "Modes")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.api.support import client_for, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluations, "send", lambda *args, **kwargs: None)


@pytest.fixture
def problem(db: Any) -> Problem:
    return factories.make_problem()


@pytest.fixture
def cpu(db: Any) -> Hardware:
    return factories.make_hardware("cpu")


def finished(owner: Any, mode: str, score: float = 0.0) -> Evaluation:
    response = upload(client_for(owner), mode=mode)
    assert response.status_code == 201, response.json()
    evaluation = Evaluation.objects.get(submission_id=response.json()["id"])
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation, score=score)  # every workload passed
    report["workloads"] = [r for r in report["workloads"] if r["visibility"] == "visible"]
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    return Evaluation.objects.get(pk=evaluation.pk)


def score_cells(page: str) -> list[str]:
    return re.findall(r'<td class="num">([^<]*)</td>\s*</tr>', page)


@pytest.mark.parametrize("mode", ["test", "profile"])
def test_an_untimed_run_shows_a_dash_and_null(problem: Problem, cpu: Hardware, client: Client,
                                              mode: str) -> None:
    owner = factories.make_user()
    evaluation = finished(owner, mode)
    assert evaluation.score is None and evaluation.aggregates["score"] is None
    assert evaluation.aggregates["passed"] == evaluation.aggregates["total"] > 0
    body = client_for(owner).get(f"/api/v1/submissions/{evaluation.submission_id}/").json()
    shown = body["evaluations"][0]
    assert shown["score"] is None and shown["aggregates"]["score"] is None
    assert shown["results"] and all(row["score"] is None and row["status"] == "PASSED"
                                    for row in shown["results"])
    client.force_login(owner)
    page = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    summary = re.search(r"<dt><a [^>]*>score</a></dt><dd>([^<]*)<", page)
    assert summary is not None and summary.group(1).strip() == "–"
    assert score_cells(page) and set(score_cells(page)) == {"–"}


def test_a_benchmark_run_keeps_its_score_of_zero(problem: Problem, cpu: Hardware, client: Client) -> None:
    owner = factories.make_user()
    evaluation = finished(owner, "benchmark", score=0.0)
    assert evaluation.score == 0.0 and evaluation.aggregates["score"] == 0.0
    client.force_login(owner)
    page = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    summary = re.search(r"<dt><a [^>]*>score</a></dt><dd>([^<]*)<", page)
    assert summary is not None and summary.group(1).strip() == "0"
    assert score_cells(page) and set(score_cells(page)) == {"0"}
