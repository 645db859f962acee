"""/metrics: queue depth, outcomes and run durations per hardware, read from the database in the
Prometheus text format, in a fixed number of queries; a token when one is configured."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Problem
from tests.platform import factories

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Client, **headers: str) -> Samples:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.content.decode())
            for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def evaluation(problem: Problem, state: str, run_seconds: float | None = None, age_seconds: float = 0,
               **fields: Any) -> Evaluation:
    now = timezone.now()
    if run_seconds is not None:
        fields.update(started_at=now - timedelta(seconds=run_seconds), finished_at=now)
    row = factories.make_evaluation(problem=problem, state=state, **fields)
    Evaluation.objects.filter(pk=row.pk).update(created=now - timedelta(seconds=age_seconds))
    return row


@pytest.fixture
def problem(db) -> Problem:
    factories.make_hardware("cpu"), factories.make_hardware("h200")
    return factories.make_problem()


TOKEN = "scrape-token-1234"


@pytest.fixture
def client(settings) -> Client:
    """A scraper holding the token, which production (DEBUG off, as in tests) requires."""
    settings.SOLARENA_METRICS_TOKEN = TOKEN
    return Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")


def test_states_queue_depth_and_durations(client: Client, problem: Problem) -> None:
    evaluation(problem, Evaluation.QUEUED, age_seconds=300)
    evaluation(problem, Evaluation.QUEUED, age_seconds=5)
    evaluation(problem, Evaluation.RUNNING)
    scored = evaluation(problem, Evaluation.SCORED, run_seconds=3, reward_hack=True)
    evaluation(problem, Evaluation.SCORED, run_seconds=45)
    evaluation(problem, Evaluation.FAILED, run_seconds=700)
    evaluation(problem, Evaluation.FAILED)  # never started: no duration
    evaluation(problem, Evaluation.CANCELLED)
    workloads = list(problem.workloads.all()[:3])
    for workload, verdict in zip(workloads, ["PASSED", "PASSED", "TIMEOUT"], strict=True):
        WorkloadResult.objects.create(evaluation=scored, workload=workload, status=verdict, sol_ms=0.1,
                                      score=0.5)

    samples = scrape(client)
    counts = {state: value(samples, "solarena_evaluations", hardware="cpu", state=state)
              for state, _ in Evaluation.STATES}
    assert counts == {"queued": 2, "running": 1, "scored": 2, "failed": 2, "cancelled": 1}
    assert all(value(samples, "solarena_evaluations", hardware="h200", state=state) == 0
               for state, _ in Evaluation.STATES)
    assert 295 <= value(samples, "solarena_evaluations_oldest_queued_seconds", hardware="cpu") < 400
    assert value(samples, "solarena_evaluations_oldest_queued_seconds", hardware="h200") == 0
    assert value(samples, "solarena_evaluations_reward_hack", hardware="cpu") == 1

    def bucket(state: str, le: str) -> float:
        return value(samples, "solarena_evaluation_run_seconds_bucket", hardware="cpu", state=state, le=le)

    assert [bucket("scored", le) for le in ("1.0", "5.0", "30.0", "60.0", "+Inf")] == [0, 1, 1, 2, 2]
    assert [bucket("failed", le) for le in ("600.0", "1200.0", "+Inf")] == [0, 1, 1]
    assert value(samples, "solarena_evaluation_run_seconds_count", hardware="cpu", state="scored") == 2
    assert value(samples, "solarena_evaluation_run_seconds_sum", hardware="cpu",
                 state="scored") == pytest.approx(48, abs=0.5)
    assert value(samples, "solarena_workload_results_total", hardware="cpu", status="PASSED") == 2
    assert value(samples, "solarena_workload_results_total", hardware="cpu", status="TIMEOUT") == 1
    assert value(samples, "solarena_submissions_total") == 8


def test_queries_do_not_grow_with_rows(client: Client, problem: Problem) -> None:
    evaluation(problem, Evaluation.QUEUED)
    with CaptureQueriesContext(connection) as few:
        scrape(client)
    for state in (Evaluation.QUEUED, Evaluation.SCORED, Evaluation.FAILED, Evaluation.RUNNING):
        for _ in range(3):
            evaluation(problem, state, run_seconds=None if state == Evaluation.QUEUED else 2)
    with CaptureQueriesContext(connection) as many:
        scrape(client)
    assert len(many.captured_queries) == len(few.captured_queries) <= 6


def test_a_configured_token_is_required(client: Client, problem: Problem) -> None:
    stranger = Client(HTTP_HOST="localhost")
    refused = stranger.get("/metrics")
    assert refused.status_code == 401 and "SOLARENA_METRICS_TOKEN" in refused.json()["detail"]
    assert stranger.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    samples = scrape(stranger, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert value(samples, "solarena_submissions_total") == 0
