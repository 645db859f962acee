"""The admin opens every model's list and detail page for a superuser."""

from __future__ import annotations

import pytest
from django.db import models
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Category, Hardware, LeaderboardEntry, Problem
from submissions.models import Submission
from tests.platform import factories


def populate() -> list[models.Model]:
    """One row of each administered model, linked the way a scored evaluation links them."""
    evaluation = factories.make_evaluation(state=Evaluation.SCORED, score=0.5, worker="gpu-0")
    submission = evaluation.submission
    problem = submission.problem
    workload = problem.workloads.first()
    WorkloadResult.objects.create(evaluation=evaluation, workload=workload, status="PASSED",
                                  latency_ms=1.0, sol_ms=0.1, score=0.5)
    entry = LeaderboardEntry.objects.create(problem=problem, hardware=evaluation.hardware,
                                            user=submission.owner, evaluation=evaluation, score=0.5,
                                            submitted_at=timezone.now())
    return [evaluation.hardware, problem.category, problem, submission, evaluation, entry]


def admin_url(obj: models.Model, view: str) -> str:
    meta = obj._meta
    args = [obj.pk] if view == "change" else []
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


@pytest.mark.django_db
def test_every_model_has_list_and_detail_pages(admin_client: Client) -> None:
    rows = populate()
    assert [type(r) for r in rows] == [Hardware, Category, Problem, Submission, Evaluation,
                                       LeaderboardEntry]
    for obj in rows:
        for view in ("changelist", "change"):
            response = admin_client.get(admin_url(obj, view))
            assert response.status_code == 200, (obj, view)


@pytest.mark.django_db
def test_detail_pages_show_workloads_and_results(admin_client: Client) -> None:
    _, _, problem, _, evaluation, _ = populate()
    page = admin_client.get(admin_url(problem, "change")).content.decode()
    assert problem.workloads.filter(visibility="hidden").first().uuid in page
    page = admin_client.get(admin_url(evaluation, "change")).content.decode()
    assert "PASSED" in page


@pytest.mark.django_db
def test_list_filters_and_search_work(admin_client: Client) -> None:
    _, _, problem, _, evaluation, _ = populate()
    url = admin_url(evaluation, "changelist")
    assert admin_client.get(url, {"state": "scored", "hardware__id__exact": evaluation.hardware_id,
                                  "q": problem.name}).status_code == 200
    assert admin_client.get(admin_url(problem, "changelist"),
                            {"is_current__exact": "1", "q": problem.name}).status_code == 200


@pytest.mark.django_db
def test_synced_rows_cannot_be_edited_in_the_admin(admin_client: Client) -> None:
    evaluation = populate()[4]
    assert admin_client.get(reverse("admin:leaderboard_problem_add")).status_code == 403
    response = admin_client.post(admin_url(evaluation, "change"), {"state": "queued"})
    assert response.status_code == 403
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.SCORED
