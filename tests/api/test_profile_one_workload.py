"""A profile run of one workload (issue 20: "each visible workload, or the one asked for"): the
submission's optional `workload`, a visible workload's uuid of the problem, is taken with
mode=profile only, by the JSON body and the upload alike, stored on the submission and shown in its
API data. A hidden uuid and an unknown one are refused with one message (which names the problem,
never which uuids are hidden); any other mode is refused; nothing is stored either way."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, api_user, client_for, post_sources, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_messages() -> Any:
    with mock.patch.object(evaluations, "send") as send:
        yield send


def one(problem: Problem, visibility: str, smoke: bool = False) -> str:
    return problem.workloads.filter(visibility=visibility, smoke=smoke).order_by("position")[0].uuid


@pytest.mark.parametrize("send", [upload, post_sources])
def test_a_visible_workload_is_taken_stored_and_shown(problem: Problem, cpu: Hardware, send: Any) -> None:
    owner = api_user()
    client = client_for(owner)
    for uuid in (one(problem, Workload.VISIBLE), one(problem, Workload.VISIBLE, smoke=True)):
        response = send(client, mode="profile", workload=uuid)
        assert response.status_code == 201, response.json()
        assert (response.json()["mode"], response.json()["workload"]) == ("profile", uuid)
        submission = Submission.objects.get(pk=response.json()["id"])
        assert (submission.mode, submission.workload) == ("profile", uuid)
        assert client.get(f"{SUBMISSIONS}{submission.pk}/").json()["workload"] == uuid
        listed = {row["id"]: row for row in client.get(SUBMISSIONS).json()["results"]}
        assert listed[submission.pk]["workload"] == uuid


def test_without_one_every_visible_workload_is_profiled(problem: Problem, cpu: Hardware) -> None:
    response = upload(client_for(api_user()), mode="profile")
    assert response.status_code == 201, response.json()
    assert response.json()["workload"] == ""
    assert post_sources(client_for(api_user()), mode="profile", workload="").json()["workload"] == ""


@pytest.mark.parametrize("send", [upload, post_sources])
def test_a_hidden_and_an_unknown_uuid_get_the_same_refusal(problem: Problem, cpu: Hardware,
                                                            send: Any) -> None:
    client = client_for(api_user())
    hidden = one(problem, Workload.HIDDEN)
    answers = {}
    for uuid in (hidden, "no-such-workload"):
        response = send(client, mode="profile", workload=uuid)
        assert response.status_code == 400, response.json()
        [message] = response.json()["workload"]
        assert "scale_shift" in message
        answers[uuid] = message.replace(repr(uuid), "UUID")
    assert answers[hidden] == answers["no-such-workload"]
    assert "hidden" not in answers[hidden]
    assert not Submission.objects.exists()


@pytest.mark.parametrize("mode", ["ranked", "test", "benchmark", None])
def test_a_workload_with_another_mode_is_refused(problem: Problem, cpu: Hardware, mode: str | None) -> None:
    fields = {"workload": one(problem, Workload.VISIBLE)}
    if mode is not None:  # left out: ranked
        fields["mode"] = mode
    for send in (upload, post_sources):
        response = send(client_for(api_user()), **fields)
        assert response.status_code == 400, response.json()
        [message] = response.json()["workload"]
        assert "profile mode only" in message
    assert not Submission.objects.exists()
