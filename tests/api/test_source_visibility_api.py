"""Who reads a submission's sources: GET /api/v1/submissions/{id}/source/ answers the owner and
admins always, anyone else (signed in or not) once the owner has published it or an admin has
revealed the problem's solutions, and 404 exactly as for a missing submission otherwise.
POST .../publish/ and .../unpublish/ are the owner's alone."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser

from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
SECRET_SOURCE = "import torch\n\n\ndef run(x, bias):  # my secret trick\n    return x * 2.0 + bias\n"


def source_url(submission_id: int) -> str:
    return f"{SUBMISSIONS}{submission_id}/source/"


@pytest.fixture
def submission(problem: Problem, cpu: Hardware) -> Submission:
    return factories.make_evaluation(problem=problem, hardware=cpu, source=SECRET_SOURCE).submission


def admin() -> AbstractBaseUser:
    user = factories.make_user()
    user.is_staff = True
    user.save()
    return user


def readers(submission: Submission) -> dict[str, Any]:
    return {"anonymous": client_for(None), "owner": client_for(submission.owner),
            "other": client_for(factories.make_user()), "admin": client_for(admin())}


def statuses(submission: Submission) -> dict[str, int]:
    return {role: api.get(source_url(submission.pk)).status_code for role, api in readers(submission).items()}


def test_a_private_source_is_the_owners_and_the_admins(submission: Submission) -> None:
    assert statuses(submission) == {"anonymous": 404, "owner": 200, "other": 404, "admin": 200}
    missing = client_for(None).get(source_url(submission.pk + 1000))
    hidden = client_for(None).get(source_url(submission.pk))
    assert hidden.json() == missing.json() == {"detail": "No Submission matches the given query."}
    assert "secret trick" not in hidden.content.decode()


def test_a_published_source_is_anyones(submission: Submission) -> None:
    Submission.objects.filter(pk=submission.pk).update(published=True)
    assert statuses(submission) == {"anonymous": 200, "owner": 200, "other": 200, "admin": 200}
    body = client_for(None).get(source_url(submission.pk)).json()
    assert body["sources"] == {"solution.py": SECRET_SOURCE} and body["entry"] == "solution.py"
    assert (body["id"], body["problem"], body["user"], body["published"], body["solutions_revealed"]) == (
        submission.pk, "scale_shift", submission.owner.username, True, False)
    assert "evaluations" not in body  # the results stay the owner's


def test_revealed_solutions_are_anyones_for_that_problem_version(submission: Submission, problem: Problem,
                                                                 cpu: Hardware) -> None:
    Problem.objects.filter(pk=problem.pk).update(solutions_revealed=True)
    assert statuses(submission) == {"anonymous": 200, "owner": 200, "other": 200, "admin": 200}
    assert client_for(None).get(source_url(submission.pk)).json()["solutions_revealed"] is True
    Problem.objects.filter(pk=problem.pk).update(is_current=False)
    newer = Problem.objects.create(name=problem.name, version=2, category=problem.category,
                                   task_type=problem.task_type, definition=problem.definition,
                                   definition_hash=problem.definition_hash)
    on_newer = factories.make_evaluation(problem=newer, hardware=cpu).submission
    assert client_for(None).get(source_url(on_newer.pk)).status_code == 404


def test_publishing_does_not_open_the_detail(submission: Submission) -> None:
    Submission.objects.filter(pk=submission.pk).update(published=True)
    assert client_for(factories.make_user()).get(f"{SUBMISSIONS}{submission.pk}/").status_code == 404
    assert client_for(None).get(f"{SUBMISSIONS}{submission.pk}/").status_code == 401


def test_the_owner_publishes_and_unpublishes(submission: Submission) -> None:
    owner = client_for(submission.owner)
    published = owner.post(f"{SUBMISSIONS}{submission.pk}/publish/")
    assert published.status_code == 200 and published.json()["published"] is True
    assert client_for(None).get(source_url(submission.pk)).status_code == 200
    assert owner.get(SUBMISSIONS).json()["results"][0]["published"] is True
    again = owner.post(f"{SUBMISSIONS}{submission.pk}/publish/")  # idempotent
    assert again.status_code == 200 and again.json()["published"] is True
    unpublished = owner.post(f"{SUBMISSIONS}{submission.pk}/unpublish/")
    assert unpublished.status_code == 200 and unpublished.json()["published"] is False
    assert client_for(None).get(source_url(submission.pk)).status_code == 404
    submission.refresh_from_db()
    assert submission.published is False


@pytest.mark.parametrize("action", ["publish", "unpublish"])
def test_nobody_else_publishes(submission: Submission, action: str) -> None:
    Submission.objects.filter(pk=submission.pk).update(published=action == "unpublish")
    url = f"{SUBMISSIONS}{submission.pk}/{action}/"
    assert client_for(None).post(url).status_code == 401
    assert client_for(factories.make_user()).post(url).status_code == 404
    refused = client_for(admin()).post(url)
    assert refused.status_code == 403 and "only the owner" in refused.json()["detail"]
    assert client_for(submission.owner).get(url).status_code == 405
    submission.refresh_from_db()
    assert submission.published is (action == "unpublish")


def test_a_non_numeric_id_is_404(submission: Submission) -> None:
    assert client_for(None).get(f"{SUBMISSIONS}abc/source/").status_code == 404
    assert client_for(submission.owner).get(f"{SUBMISSIONS}abc/").status_code == 404
