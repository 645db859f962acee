"""Each agent version is its own entry: a second ranked upload of the same (owner, agent name,
version) is refused with a message naming the upload that holds it, by the upload and by its dry
run; a test or benchmark upload may repeat a version, and another owner may use the same name."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission
from tests.api.support import client_for
from tests.api.test_agent_dry_run import one_solution
from tests.api.test_agent_submissions_api import AGENTS, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_a_repeated_version_is_refused_naming_the_upload_that_holds_it(problem: Problem,
                                                                       cpu: Hardware) -> None:
    owner = factories.make_user()
    first = send_bundle(client_for(owner), zipped(one_solution()))
    assert first.status_code == 201
    again = send_bundle(client_for(owner), zipped(one_solution()))
    assert again.status_code == 400
    [message] = again.json()["file"]
    assert message.startswith(f"'kernel-agent' version '1.2.0' is already uploaded (agent submission "
                              f"#{first.json()['id']}, ")
    assert "nothing was stored: give this run another version" in message
    assert AgentSubmission.objects.count() == 1
    checked = client_for(owner).post(f"{AGENTS}?validate=1", {"file": _file(), "hardware": ["cpu"]},
                                     format="multipart")
    assert checked.status_code == 400 and checked.json()["file"] == [message]


def test_test_runs_may_repeat_a_version_and_other_owners_are_apart(problem: Problem,
                                                                   cpu: Hardware) -> None:
    owner = factories.make_user()
    assert send_bundle(client_for(owner), zipped(one_solution())).status_code == 201
    for _ in range(2):
        sent = client_for(owner).post(AGENTS, {"file": _file(), "hardware": ["cpu"], "mode": "test"},
                                      format="multipart")
        assert sent.status_code == 201, sent.content
    assert send_bundle(client_for(factories.make_user()), zipped(one_solution())).status_code == 201
    assert AgentSubmission.objects.count() == 4


def test_a_test_run_does_not_take_the_version(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    tried = client_for(owner).post(AGENTS, {"file": _file(), "hardware": ["cpu"], "mode": "test"},
                                   format="multipart")
    assert tried.status_code == 201
    assert send_bundle(client_for(owner), zipped(one_solution())).status_code == 201


def _file() -> SimpleUploadedFile:
    return SimpleUploadedFile("agent.zip", zipped(one_solution()))
