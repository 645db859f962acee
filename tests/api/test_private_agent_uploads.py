"""POST /api/v1/agent-submissions/ with private=true: the upload is evaluated, its owner (and the
admins) read it and its figures, and everyone else meets it nowhere: not on the agent board, the
agent's document, an upload's results, its solutions' sources, nor its trajectory (404, as a missing
one). POST .../<id>/publish/ by the owner lists it and puts its results on the boards; anyone else,
an admin included, gets 404; publishing twice is a harmless 200; a test upload is refused (400).
The dry run does not change."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluator import services
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import api_user, client_for
from tests.api.test_agent_submissions_api import AGENTS, BOARD, good_files, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def problems(problem: Problem) -> list[Problem]:
    from tests.api.test_agent_submissions_api import another_problem

    return [problem, another_problem("scale_shift_v2"), another_problem("scale_shift_json")]


def send(client: Any, private: Any = None, query: str = "", **fields: Any) -> Any:
    data = {"file": SimpleUploadedFile("agent.zip", zipped(good_files(**fields))), "hardware": ["cpu"]}
    if private is not None:
        data["private"] = private
    return client.post(AGENTS + query, data, format="multipart")


def score_all(agent: AgentSubmission, score: float = 0.6) -> None:
    for evaluation in Evaluation.objects.filter(submission__agent_submission=agent):
        assert services.claim(evaluation.pk, "w") is not None
        assert services.ingest(evaluation.pk, "w", factories.fake_report(evaluation, score))


def test_a_private_upload_is_its_owners_alone_until_published(problems: list[Problem], cpu: Hardware) -> None:
    owner, other, admin = api_user(), api_user(), api_user(staff=True)
    mine, theirs, anyone = client_for(owner), client_for(other), client_for()
    created = send(mine, private="true")
    assert created.status_code == 201, created.json()
    assert created.json()["private"] is True
    agent = AgentSubmission.objects.get()
    assert agent.private and Evaluation.objects.filter(submission__agent_submission=agent).count() == 3
    score_all(agent)

    assert not LeaderboardEntry.objects.exists(), "a private upload's solutions are on no problem board"
    assert mine.get(BOARD, {"hardware": "cpu"}).json()["entries"] == []
    results = f"{AGENTS}{agent.pk}/results/"
    assert mine.get(results).json()["private"] is True
    assert mine.get(results).json()["hardware"][0]["suite"]["solved"] == 3, "the owner sees its figures"
    assert client_for(admin).get(results).status_code == 200
    for client in (theirs, anyone):
        assert client.get(results).status_code == 404
        document = client.get("/api/v1/agents/", {"user": owner.username, "agent": "kernel-agent"})
        assert document.status_code == 404
        assert client.get(f"{AGENTS}compare/", {"a": agent.pk, "b": agent.pk}).status_code == 404
    solution = Submission.objects.filter(agent_submission=agent).first()
    Submission.objects.filter(agent_submission=agent).update(published=True)
    assert anyone.get(f"/api/v1/submissions/{solution.pk}/source/").status_code == 404, (
        "a published source of a private upload stays private")
    assert mine.get(f"/api/v1/submissions/{solution.pk}/source/").status_code == 200

    for client in (theirs, client_for(admin)):
        refused = client.post(f"{AGENTS}{agent.pk}/publish/")
        assert refused.status_code == 404 and "of yours" in refused.json()["detail"]
    assert AgentSubmission.objects.get().private
    assert anyone.post(f"{AGENTS}{agent.pk}/publish/").status_code in (401, 403)

    published = mine.post(f"{AGENTS}{agent.pk}/publish/")
    assert published.status_code == 200, published.json()
    assert published.json()["private"] is False and not AgentSubmission.objects.get().private
    assert LeaderboardEntry.objects.filter(user=owner).count() == 3
    board = anyone.get(BOARD, {"hardware": "cpu"}).json()["entries"]
    assert [entry["agent_submission"] for entry in board] == [agent.pk]
    assert anyone.get(results).status_code == 200
    assert anyone.get(f"/api/v1/submissions/{solution.pk}/source/").status_code == 200

    again = mine.post(f"{AGENTS}{agent.pk}/publish/")
    assert again.status_code == 200 and again.json()["private"] is False


def test_an_upload_is_public_unless_asked(problems: list[Problem], cpu: Hardware) -> None:
    created = send(client_for(api_user()), private="false", version="2.0")
    assert created.status_code == 201 and created.json()["private"] is False
    assert send(client_for(api_user())).json()["private"] is False


def test_a_bad_private_flag_is_named(problems: list[Problem], cpu: Hardware) -> None:
    refused = send(client_for(api_user()), private="maybe")
    assert refused.status_code == 400 and "private" in refused.json()
    assert not AgentSubmission.objects.exists()


def test_publishing_what_cannot_be_published(problems: list[Problem], cpu: Hardware) -> None:
    owner = api_user()
    mine = client_for(owner)
    test_run = mine.post(AGENTS, {"file": SimpleUploadedFile("agent.zip", zipped(good_files())),
                                  "hardware": ["cpu"], "mode": "test", "private": "true"}, format="multipart")
    assert test_run.status_code == 201
    refused = mine.post(f"{AGENTS}{test_run.json()['id']}/publish/")
    assert refused.status_code == 400 and "is a test run" in refused.json()["mode"][0]
    for missing in ("999999", "99999999999999999999999", "abc"):
        assert mine.post(f"{AGENTS}{missing}/publish/").status_code == 404


def test_the_dry_run_is_unchanged(problems: list[Problem], cpu: Hardware) -> None:
    checked = send(client_for(api_user()), private="true", query="?validate=1")
    assert checked.status_code == 200 and checked.json()["valid"] is True
    assert not AgentSubmission.objects.exists()
