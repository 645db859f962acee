"""One limit on submissions per minute, whatever the channel: the browser form, the API (which the
CLI uses) and agent bundles each count against the same figure, read from the database under the
owner's lock (submissions.services), so it holds across web processes. Past it the form shows
the message and the API answers 429 with Retry-After; nothing is stored."""

from __future__ import annotations

import io
import itertools
import json
import zipfile
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_messages() -> Any:
    with mock.patch.object(evaluations, "send") as send:
        yield send


@pytest.fixture
def user(db: Any) -> AbstractBaseUser:
    return factories.make_user()


@pytest.fixture
def browser(client: Client, user: AbstractBaseUser) -> Client:
    client.force_login(user)
    return client


def form_post(client: Client) -> Any:
    return client.post("/submit/", {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
                                    "file": SimpleUploadedFile("solution.py", factories.CORRECT.encode())})


VERSIONS = itertools.count(1)


def send_bundle(api: APIClient) -> Any:
    """A bundle of a new version each time (a repeated version is refused before any limit)."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        manifest = {"name": "a", "version": str(next(VERSIONS)), "model": "m"}
        bundle.writestr("manifest.json", json.dumps(manifest))
        bundle.writestr("scale_shift.py", factories.CORRECT)
    return api.post("/api/v1/agent-submissions/", {
        "file": SimpleUploadedFile("agent.zip", archive.getvalue()), "hardware": ["cpu"]}, format="multipart")


def test_form_posts_past_the_default_limit_are_refused(browser: Client, problem: Problem,
                                                       cpu: Hardware) -> None:
    statuses = [form_post(browser).status_code for _ in range(22)]
    assert statuses == [302] * 20 + [400] * 2
    refused = form_post(browser)
    assert "20 are allowed per minute; try again in" in refused.content.decode()
    assert Submission.objects.count() == 20


@override_settings(SUBMISSION_RATE="2/minute")
def test_the_api_refuses_with_retry_after(user: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    api = client_for(user)
    assert [upload(api).status_code for _ in range(2)] == [201, 201]
    refused = upload(api)
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
    assert refused.json()["detail"].startswith("Request was throttled. Expected available in")
    assert upload(client_for(factories.make_user())).status_code == 201, "per participant"
    assert Submission.objects.count() == 3


@override_settings(SUBMISSION_RATE="2/minute")
def test_bundles_count_once_and_are_limited(user: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    api = client_for(user)
    assert [send_bundle(api).status_code for _ in range(2)] == [201, 201]
    refused = send_bundle(api)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert AgentSubmission.objects.count() == 2 and Submission.objects.count() == 2


@override_settings(SUBMISSION_RATE="3/minute")
def test_the_limit_is_shared_across_channels(browser: Client, user: AbstractBaseUser, problem: Problem,
                                             cpu: Hardware) -> None:
    api = client_for(user)
    assert form_post(browser).status_code == 302
    assert upload(api).status_code == 201
    assert send_bundle(api).status_code == 201
    assert form_post(browser).status_code == 400
    assert upload(api).status_code == 429
    assert send_bundle(api).status_code == 429
    assert Submission.objects.count() == 3


@override_settings(SUBMISSION_RATE="2/minute")
def test_it_holds_across_processes_and_frees_up_with_time(user: AbstractBaseUser, problem: Problem,
                                                          cpu: Hardware) -> None:
    api = client_for(user)
    assert [upload(api).status_code for _ in range(2)] == [201, 201]
    cache.clear()  # another web process: no counter in its cache, the database says the same
    assert upload(api).status_code == 429
    Submission.objects.filter(owner=user).update(created=timezone.now() - timedelta(seconds=61))
    assert upload(api).status_code == 201


@override_settings(SUBMISSION_RATE="")
def test_an_empty_rate_means_no_limit(browser: Client, problem: Problem, cpu: Hardware) -> None:
    assert all(form_post(browser).status_code == 302 for _ in range(3))
