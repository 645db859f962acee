"""GET /api/v1/problems/ and /api/v1/hardware/: public, paginated, filterable; a problem's detail
lists its visible workloads with their SOL bound on each hardware, and never a hidden one; a bad
token is refused there too."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.utils import timezone
from rest_framework.pagination import PageNumberPagination

from evaluator.scoring.hardware import HARDWARE
from evaluator.scoring.score import sol_bound_ms
from leaderboard.models import Category, Hardware, LeaderboardEntry, Problem, Workload
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
PROBLEMS = "/api/v1/problems/"


def other_problem(name: str, category: str = "l2", task_type: str = "optimize_triton", **fields: object
                  ) -> Problem:
    group, _ = Category.objects.get_or_create(slug=category, defaults={"name": category.upper()})
    return Problem.objects.create(name=name, category=group, task_type=task_type, definition={},
                                  definition_hash=name, **fields)


def names(response: object) -> list[str]:
    return [p["name"] for p in response.json()["results"]]


def test_list_is_public_and_shows_current_versions(problem: Problem) -> None:
    other_problem("fused_mlp", version=1, is_current=False)
    other_problem("fused_mlp", version=2)
    response = client_for(None).get(PROBLEMS)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2 and names(response) == ["fused_mlp", "scale_shift"]
    listed = {p["name"]: p for p in body["results"]}
    assert listed["fused_mlp"]["version"] == 2
    assert listed["scale_shift"] == {"name": "scale_shift", "slug": "scale_shift", "version": 1,
                                     "category": "l1", "task_type": "from_reference",
                                     "op_type": problem.op_type, "description": problem.description}


def test_list_is_paginated() -> None:
    for name in ("a", "b", "c"):
        other_problem(name)
    with mock.patch.object(PageNumberPagination, "page_size", 2):
        first = client_for(None).get(PROBLEMS).json()
        assert first["count"] == 3 and len(first["results"]) == 2 and first["next"]
        second = client_for(None).get(first["next"]).json()
    assert [p["name"] for p in second["results"]] == ["c"] and second["previous"]


def test_filters(problem: Problem, cpu: Hardware) -> None:
    other_problem("fused_mlp")
    api = client_for(None)
    assert names(api.get(PROBLEMS, {"category": "l1"})) == ["scale_shift"]
    assert names(api.get(PROBLEMS, {"task_type": "optimize_triton"})) == ["fused_mlp"]
    assert names(api.get(PROBLEMS, {"hardware": "cpu"})) == []
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu, state="scored", score=0.5)
    LeaderboardEntry.objects.create(problem=problem, hardware=cpu, user=evaluation.submission.owner,
                                    evaluation=evaluation, score=0.5, submitted_at=timezone.now())
    assert names(api.get(PROBLEMS, {"hardware": "cpu"})) == ["scale_shift"]
    assert names(api.get(PROBLEMS, {"hardware": "h200"})) == []


def test_detail_has_visible_workloads_with_sol_bounds_per_hardware(problem: Problem, cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    Hardware.objects.filter(pk=h200.pk).update(calibrated={"memory_bandwidth": 4e12})
    factories.make_hardware("b200")
    Hardware.objects.filter(slug="b200").update(active=False)
    response = client_for(None).get(f"{PROBLEMS}scale_shift/")
    assert response.status_code == 200
    body = response.json()
    assert body["definition"]["name"] == "scale_shift"
    visible = problem.workloads.filter(visibility=Workload.VISIBLE).order_by("position")
    assert [w["uuid"] for w in body["workloads"]] == [w.uuid for w in visible]
    for row, workload in zip(body["workloads"], visible, strict=True):
        assert set(row["sol_ms"]) == {"cpu", "h200"}  # active hardware only
        rows, cols = workload.axes["rows"], workload.axes["cols"]
        flops, nbytes = 2 * rows * cols, 4 * (2 * rows * cols + cols)
        assert row["sol_ms"]["cpu"] == pytest.approx(sol_bound_ms(flops, nbytes, HARDWARE["cpu"], "float32"))
        assert row["sol_ms"]["h200"] == pytest.approx(  # the calibrated bandwidth wins
            sol_bound_ms(flops, nbytes, HARDWARE["h200"], "float32", {"memory_bandwidth": 4e12}))


def test_detail_never_shows_hidden_workloads(problem: Problem) -> None:
    hidden = list(problem.workloads.filter(visibility=Workload.HIDDEN))
    assert hidden
    text = client_for(None).get(f"{PROBLEMS}scale_shift/").content.decode()
    for workload in hidden:
        assert workload.uuid not in text
        assert json.dumps(workload.axes) not in text


def test_unknown_problem_is_404() -> None:
    response = client_for(None).get(f"{PROBLEMS}no_such_problem/")
    assert response.status_code == 404 and "detail" in response.json()


def test_hardware_list(cpu: Hardware) -> None:
    factories.make_hardware("h200")
    body = client_for(None).get("/api/v1/hardware/").json()
    assert [h["slug"] for h in body["results"]] == ["cpu", "h200"]
    h200 = body["results"][1]
    assert h200["memory_bandwidth"] == HARDWARE["h200"].memory_bandwidth
    assert h200["peak_flops"]["bfloat16"] == HARDWARE["h200"].peak_flops["bfloat16"]
    assert h200["active"] is True


def test_one_hardware_and_an_unknown_one(cpu: Hardware) -> None:
    response = client_for(None).get("/api/v1/hardware/cpu/")
    assert response.status_code == 200 and response.json()["slug"] == "cpu"
    assert client_for(None).get("/api/v1/hardware/tpu9/").status_code == 404


def test_a_bad_token_is_refused_even_where_no_account_is_needed(problem: Problem, cpu: Hardware) -> None:
    # A script with a revoked or mistyped token learns it at once, not at its first upload.
    for path in (PROBLEMS, "/api/v1/hardware/", "/api/v1/leaderboards/scale_shift/cpu/"):
        response = client_for(None).get(path, HTTP_AUTHORIZATION="Bearer sol_not-a-token")
        assert response.status_code == 401 and "token" in response.json()["detail"], path
