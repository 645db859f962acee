"""JSON from a user nested past the limit (evaluator/bounded_json.MAX_DEPTH, 64 levels) is a 400
naming the limit on every endpoint that parses it, never a 500: the JSON body of a submission, a
solution.json sent as sources or uploaded, and an agent bundle's manifest and solution.json, on
the upload and on its dry run. Nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.response import Response

from evaluator.bounded_json import MAX_DEPTH
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import SUBMISSIONS, client_for, upload
from tests.api.test_agent_submissions_api import AGENTS, LOG, MANIFEST, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db
TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels"


def nested(levels: int) -> str:
    """A JSON array `levels` deep, written by hand (json.dumps itself recurses)."""
    return "[" * levels + "]" * levels


def solution_json(extra_levels: int) -> str:
    """A good solution.json (one level, its object) with a `description` nested extra_levels deep."""
    good = json.dumps({"spec": {"entry_point": "kernel.py::run"},
                       "sources": [{"path": "kernel.py", "content": factories.CORRECT}]})
    return good[:-1] + f', "description": {nested(extra_levels)}}}'


def nothing_stored() -> bool:
    return not (Submission.objects.exists() or AgentSubmission.objects.exists())


def refused(response: Response, field: str) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    message = response.json()[field]
    return message if isinstance(message, str) else message[0]


def raw_json(body: str) -> Response:
    return client_for(factories.make_user()).post(SUBMISSIONS, body, content_type="application/json")


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000, 100_000])
def test_a_deep_request_body_is_a_400(problem: Problem, cpu: Hardware, levels: int) -> None:
    body = ('{"problem": "scale_shift", "hardware": ["cpu"], "entry": "solution.py", '
            f'"sources": {{"solution.py": "x"}}, "language": {nested(levels)}}}')
    assert refused(raw_json(body), "detail").startswith(f"request body: {TOO_DEEP}")
    assert nothing_stored()


def test_a_deep_solution_json_in_sources_is_a_400(problem: Problem, cpu: Hardware) -> None:
    body = {"problem": "scale_shift", "hardware": ["cpu"], "entry": "solution.json",
            "sources": {"solution.json": solution_json(1000)}}
    response = client_for(factories.make_user()).post(SUBMISSIONS, body, format="json")
    assert refused(response, "sources") == f"solution.json: {TOO_DEEP} (the limit on nesting of arrays " \
                                            "and objects)"
    assert nothing_stored()


def test_an_uploaded_solution_json_is_held_to_the_limit(problem: Problem, cpu: Hardware) -> None:
    client = client_for(factories.make_user())
    for levels in (MAX_DEPTH, 1000):
        response = client.post(f"{SUBMISSIONS}upload/", {
            "problem": "scale_shift", "hardware": ["cpu"],
            "file": SimpleUploadedFile("solution.json", solution_json(levels).encode())}, format="multipart")
        assert TOO_DEEP in refused(response, "file")
    assert nothing_stored()
    # at the limit (the object and 63 levels below it) it is accepted
    accepted = upload(client, solution_json(MAX_DEPTH - 1).encode(), name="solution.json")
    assert accepted.status_code == 201, accepted.json()


def bundle(manifest: str = json.dumps(MANIFEST), **files: str) -> dict[str, Any]:
    return {"file": SimpleUploadedFile("agent.zip", zipped(
        {"manifest.json": manifest, "logs/agent.log": LOG, **files})), "hardware": ["cpu"]}


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_deep_manifest_or_solution_json_in_a_bundle_is_a_400(
        problem: Problem, cpu: Hardware, dry_run: bool) -> None:
    client = client_for(factories.make_user())
    url = f"{AGENTS}?validate=1" if dry_run else AGENTS
    manifest = json.dumps(MANIFEST)[:-1] + f', "extra": {nested(1000)}}}'
    deep_manifest = client.post(url, bundle(manifest, **{"scale_shift.py": factories.CORRECT}),
                                format="multipart")
    assert refused(deep_manifest, "file").startswith(f"manifest.json: {TOO_DEEP}")
    deep_solution = client.post(url, bundle(**{"scale_shift/solution.json": solution_json(1000)}),
                                format="multipart")
    assert refused(deep_solution, "file").startswith(f"scale_shift/solution.json: {TOO_DEEP}")
    assert nothing_stored()
