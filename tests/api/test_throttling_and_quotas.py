"""Limits: the daily submission quota per participant and problem (429, platform failures not
counted), the source size limit (413), DRF's request throttles (429 with Retry-After) per IP
address without an account and per user, and the submissions per minute shared by both kinds of
upload (the service's limit, answered the same way). The limit on evaluations in flight is in
test_concurrent_evaluations_limit.py; the per-minute limit over every channel in
tests/platform/test_submission_rate_limit.py."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=2)
def test_daily_quota_per_problem(problem: Problem, cpu: Hardware) -> None:
    user = factories.make_user()
    api = client_for(user)
    assert [upload(api).status_code for _ in range(2)] == [201, 201]
    refused = upload(api)
    assert refused.status_code == 429
    assert "2 submissions to scale_shift in the last 24 hours" in refused.json()["detail"]
    assert Submission.objects.count() == 2
    # Other participants and older submissions are not counted.
    assert upload(client_for(factories.make_user())).status_code == 201
    Submission.objects.filter(owner=user).update(created=timezone.now() - timedelta(hours=25))
    assert upload(api).status_code == 201


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=2)
def test_evaluations_the_platform_failed_do_not_count(problem: Problem, cpu: Hardware) -> None:
    user = factories.make_user()
    api = client_for(user)
    for _ in range(2):
        submission = Submission.objects.get(pk=upload(api).json()["id"])
        evaluations.fail(submission.evaluations.get().pk, "the evaluator failed: OSError: disk full")
    assert upload(api).status_code == 201
    scored = Evaluation.objects.filter(state=Evaluation.QUEUED).get()
    Evaluation.objects.filter(pk=scored.pk).update(state=Evaluation.SCORED, score=0.0)
    assert upload(api).status_code == 201
    assert upload(api).status_code == 429


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=0)
def test_a_quota_of_zero_means_none(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    assert all(upload(api).status_code == 201 for _ in range(3))


@override_settings(SOLARENA_MAX_SOURCE_BYTES=200)
def test_the_source_size_limit_is_a_setting(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    assert upload(api, b"def run(x, bias):\n    return x\n").status_code == 201
    response = upload(api, b"# padding\n" * 30)
    assert response.status_code == 413
    assert "over the limit of 200 bytes" in response.json()["file"][0]
    assert Submission.objects.count() == 1


def test_submissions_are_throttled_per_user(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    with override_settings(SUBMISSION_RATE="2/minute"):
        assert [upload(api).status_code for _ in range(2)] == [201, 201]
        refused = upload(api)
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert "throttled" in refused.json()["detail"].lower()
        assert api.get("/api/v1/submissions/").status_code == 200  # reading is another scope
        assert upload(client_for(factories.make_user())).status_code == 201
    assert Submission.objects.count() == 3


def test_anonymous_reads_are_throttled(cpu: Hardware) -> None:
    api = client_for(None)
    with mock.patch.dict(SimpleRateThrottle.THROTTLE_RATES, {"anon": "3/minute"}):
        assert [api.get("/api/v1/hardware/").status_code for _ in range(4)] == [200, 200, 200, 429]


def test_agent_submissions_share_the_submissions_throttle(problem: Problem, cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    with override_settings(SUBMISSION_RATE="2/minute"):
        assert upload(api).status_code == 201
        versions = iter(["1", "2"])

        def send_bundle() -> Any:
            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w") as bundle:
                manifest = {"name": "a", "version": next(versions), "model": "m"}
                bundle.writestr("manifest.json", json.dumps(manifest))
                bundle.writestr("scale_shift.py", factories.CORRECT)
            return api.post("/api/v1/agent-submissions/", {
                "file": SimpleUploadedFile("agent.zip", archive.getvalue()), "hardware": ["cpu"]},
                format="multipart")

        assert send_bundle().status_code == 201
        refused = send_bundle()
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert upload(api).status_code == 429
    assert AgentSubmission.objects.count() == 1 and Submission.objects.count() == 2


def test_signed_in_requests_are_throttled_per_user(cpu: Hardware) -> None:
    user = factories.make_user()
    api = client_for(user)
    with mock.patch.dict(SimpleRateThrottle.THROTTLE_RATES, {"user": "3/minute"}):
        assert [api.get("/api/v1/hardware/").status_code for _ in range(4)] == [200, 200, 200, 429]
        assert api.get("/api/v1/submissions/").status_code == 429  # one budget for every endpoint
        assert client_for(user).get("/api/v1/hardware/").status_code == 429  # per user, not per token
        assert client_for(factories.make_user()).get("/api/v1/hardware/").status_code == 200
