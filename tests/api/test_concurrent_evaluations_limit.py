"""SOLARENA_MAX_CONCURRENT_EVALUATIONS: a participant's evaluations queued or running at once. A
submission (API, browser form, agent bundle) that would go over it is refused with 429 naming the
limit and how many are in flight, and nothing is stored."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def bundle(*problems: str) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"name": "a", "version": "1", "model": "m"}))
        for name in problems:
            archive.writestr(f"{name}.py", factories.CORRECT)
    return SimpleUploadedFile("agent.zip", buffer.getvalue())


def copy_of(problem: Problem, name: str) -> Problem:
    return Problem.objects.create(name=name, category=problem.category, task_type=problem.task_type,
                                  definition=problem.definition, definition_hash=problem.definition_hash)


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=3)
def test_queued_and_running_evaluations_count_until_they_finish(problem: Problem, cpu: Hardware) -> None:
    factories.make_hardware("h200")
    user = factories.make_user()
    api = client_for(user)
    assert upload(api, hardware=["cpu", "h200"]).status_code == 201
    refused = upload(api, hardware=["cpu", "h200"])
    assert refused.status_code == 429
    detail = refused.json()["detail"]
    assert "you have 2 evaluations queued or running" in detail and "would add 2" in detail
    assert "limit of 3 at once" in detail
    assert Submission.objects.count() == 1 and Evaluation.objects.count() == 2
    first = Evaluation.objects.order_by("pk").first()
    assert evaluations.claim(first.pk, "worker-a") is not None  # running still counts
    assert upload(api, hardware=["cpu", "h200"]).status_code == 429
    assert upload(api).status_code == 201  # 3 of 3
    assert upload(api).status_code == 429
    assert evaluations.ingest(first.pk, "worker-a", factories.fake_report(first))  # scored: frees one
    assert upload(api).status_code == 201
    # Another participant has limits of their own.
    assert upload(client_for(factories.make_user()), hardware=["cpu", "h200"]).status_code == 201


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=1)
def test_failed_and_cancelled_evaluations_are_not_in_flight(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    first = Submission.objects.get(pk=upload(api).json()["id"])
    assert upload(api).status_code == 429
    evaluations.fail(first.evaluations.get().pk, "the evaluator failed: OSError: disk full")
    second = upload(api)
    assert second.status_code == 201
    assert api.post(f"/api/v1/submissions/{second.json()['id']}/cancel/").status_code == 200
    assert upload(api).status_code == 201


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=2)
def test_one_submission_over_the_limit_alone_is_refused(problem: Problem, cpu: Hardware) -> None:
    factories.make_hardware("h200")
    factories.make_hardware("h100")
    refused = upload(client_for(factories.make_user()), hardware=["cpu", "h200", "h100"])
    assert refused.status_code == 429
    detail = refused.json()["detail"]
    assert "you have 0 evaluations queued or running and this submission would add 3" in detail
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=0)
def test_a_limit_of_zero_means_none(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    assert all(upload(api).status_code == 201 for _ in range(4))


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=5)
def test_an_agent_bundle_counts_all_its_evaluations(problem: Problem, cpu: Hardware) -> None:
    factories.make_hardware("h200")
    copy_of(problem, "scale_shift_b")
    copy_of(problem, "scale_shift_c")
    user = factories.make_user()
    api = client_for(user)
    assert upload(api).status_code == 201  # 1 in flight
    refused = api.post("/api/v1/agent-submissions/", {
        "file": bundle("scale_shift", "scale_shift_b", "scale_shift_c"), "hardware": ["cpu", "h200"]},
        format="multipart")
    assert refused.status_code == 429
    assert ("you have 1 evaluation queued or running and this bundle would add 6, over the limit of 5"
            in refused.json()["detail"])
    assert not AgentSubmission.objects.exists() and Submission.objects.count() == 1
    accepted = api.post("/api/v1/agent-submissions/", {
        "file": bundle("scale_shift_b", "scale_shift_c"), "hardware": ["cpu", "h200"]}, format="multipart")
    assert accepted.status_code == 201, accepted.json()
    assert Evaluation.objects.filter(submission__owner=user, state=Evaluation.QUEUED).count() == 5


@override_settings(SOLARENA_MAX_CONCURRENT_EVALUATIONS=1)
def test_the_browser_form_shows_the_limit_as_a_form_error(client: Client, problem: Problem,
                                                          cpu: Hardware) -> None:
    user = factories.make_user()
    factories.make_evaluation(owner=user, problem=problem, hardware=cpu)
    client.force_login(user)
    upload_file = SimpleUploadedFile("solution.py", factories.CORRECT.encode())
    response = client.post("/submit/", {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
                                        "file": upload_file})
    assert response.status_code == 400
    errors: Any = response.context["form"].non_field_errors()
    assert len(errors) == 1 and "you have 1 evaluation queued or running" in errors[0]
    assert "limit of 1 at once" in response.content.decode()
    assert Submission.objects.count() == 1
