"""GET /api/v1/evaluations/{id}/trace/: a scored evaluation's visible results as SOL-ExecBench
trace JSONL (tests/trace_format.py), for the owner and admins only, never naming a hidden
workload; an evaluation without results, or a format it cannot give, is refused with a reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser

from evaluator import services
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem, Workload
from tests import trace_format
from tests.api.support import api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
ENVIRONMENT = {"device": "cpu", "gpu": None, "torch": "2.6.0", "triton": "3.2.0", "python": "3.11.7"}


def trace_url(evaluation: Evaluation, suffix: str = "") -> str:
    return f"/api/v1/evaluations/{evaluation.pk}/trace/{suffix}"


def scored(owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> Evaluation:
    """An evaluation scored through claim and ingestion: the first visible workload numerically
    wrong, every other one passed; hidden rows quote their shapes, as a harness message could."""
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    report = factories.fake_report(evaluation, score=0.6)
    report["environment"] = ENVIRONMENT
    for row in report["workloads"]:
        row["correctness"] = {"rounds": 2, "max_abs_error": 1e-6, "max_rel_error": 2e-6,
                              "min_matched_ratio": 1.0}
        if row["visibility"] == "hidden":
            row["message"] = f"shape {row['axes']}"
    wrong = report["workloads"][0]
    wrong.update(status="INCORRECT_NUMERICAL", score=0.0, latency_ms=None, message="round 1: wrong",
                 correctness={"max_abs_error": 1.0, "max_rel_error": 0.5, "min_matched_ratio": 0.2,
                              "has_nan": False, "has_inf": False})
    assert services.claim(evaluation.pk, "w") and services.ingest(evaluation.pk, "w", report)
    evaluation.refresh_from_db()
    return evaluation


def lines(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.decode().splitlines()]


def test_owner_gets_one_valid_trace_per_visible_workload(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    evaluation = scored(owner, problem, cpu)
    response = client_for(owner).get(trace_url(evaluation))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert response["Content-Disposition"] == (
        f'attachment; filename="evaluation-{evaluation.pk}-traces.jsonl"')
    records = lines(response.content)
    smoke = Workload.objects.filter(problem=problem, smoke=True).order_by("position")
    visible = [w for w in smoke if w.visibility == Workload.VISIBLE]
    hidden = [w for w in smoke if w.visibility == Workload.HIDDEN]
    assert [r["workload"]["uuid"] for r in records] == [w.uuid for w in visible]
    assert response["X-Hidden-Workloads-Left-Out"] == str(len(hidden)) != "0"
    for record, workload in zip(records, visible, strict=True):
        assert trace_format.problems(record) == []
        assert record["definition"] == problem.name
        assert record["solution"] == f"submission-{evaluation.submission_id}"
        assert record["workload"]["axes"] == workload.axes
        assert record["evaluation"]["environment"] == {
            "hardware": cpu.name, "libs": {"torch": "2.6.0", "triton": "3.2.0", "python": "3.11.7"}}
        assert record["evaluation"]["timestamp"].endswith("Z")
    wrong, passed = records[0]["evaluation"], records[1]["evaluation"]
    assert wrong["status"] == "INCORRECT_NUMERICAL" and wrong["performance"] is None
    assert wrong["correctness"]["max_absolute_error"] == 1.0 and wrong["log"] == "round 1: wrong"
    assert passed["status"] == "PASSED"
    assert passed["performance"] == {"latency_ms": 1.0, "reference_latency_ms": 2.0, "speedup_factor": 2.0}
    body = response.content.decode()
    for workload in hidden:  # neither its uuid nor its shape
        assert workload.uuid not in body and f"shape {workload.axes}" not in body


def test_json_format_gives_the_same_records_as_one_array(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    evaluation = scored(owner, problem, cpu)
    api = client_for(owner)
    as_lines = lines(api.get(trace_url(evaluation)).content)
    as_json = api.get(trace_url(evaluation), {"format": "json"})
    assert as_json.status_code == 200 and as_json["Content-Type"] == "application/json"
    assert as_json.json() == as_lines
    negotiated = api.get(trace_url(evaluation), HTTP_ACCEPT="application/x-ndjson")
    assert lines(negotiated.content) == as_lines
    assert api.get(trace_url(evaluation), HTTP_ACCEPT="application/json").json() == as_lines


def test_only_the_owner_and_admins_read_traces(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    evaluation = scored(owner, problem, cpu)
    assert client_for(None).get(trace_url(evaluation)).status_code == 401
    assert client_for(api_user(staff=True)).get(trace_url(evaluation)).status_code == 200
    other = client_for(api_user()).get(trace_url(evaluation))
    missing = client_for(owner).get("/api/v1/evaluations/999999/trace/")
    assert other.status_code == missing.status_code == 404
    assert other.json() == missing.json() == {"detail": "No Evaluation matches the given query."}


def test_an_evaluation_without_results_is_refused_with_its_state(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    queued = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    response = client_for(owner).get(trace_url(queued))
    assert response.status_code == 409
    assert response["Content-Type"] == "application/json"  # errors are JSON whatever was asked
    assert response.json()["detail"].startswith(f"evaluation #{queued.pk} is queued; only a scored")
    failed = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu, state=Evaluation.FAILED,
                                       error="the evaluator stopped answering")
    assert "is failed: the evaluator stopped answering" in client_for(owner).get(
        trace_url(failed)).json()["detail"]


def test_an_unknown_format_is_refused_by_name(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    evaluation = scored(owner, problem, cpu)
    response = client_for(owner).get(trace_url(evaluation), {"format": "xml"})
    assert response.status_code == 406
    assert response.json() == {"detail": "?format= must be jsonl (the default) or json"}


def test_a_reward_hack_evaluation_passes_nothing(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    evaluation = scored(owner, problem, cpu)
    services.mark_reward_hack(evaluation, api_user(staff=True), "reads the reference's output")
    records = lines(client_for(owner).get(trace_url(evaluation)).content)
    statuses = [r["evaluation"]["status"] for r in records]
    assert statuses == ["INCORRECT_NUMERICAL"] + ["REWARD_HACK"] * (len(records) - 1)
    for record in records:
        assert trace_format.problems(record) == []
        assert "reads the reference" not in json.dumps(record)  # the reviewer's evidence is for admins
