"""A solution has at most SOLARENA_MAX_SOURCE_FILES (64) source files and SOLARENA_MAX_SOURCE_BYTES
(1 MiB) in all, however it is sent: JSON sources, a solution.json in sources or uploaded, or a
solution.json in an agent bundle. Over either, the intake refuses naming the count or size and the
limit, and nothing is stored."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for, post_sources, upload
from tests.api.test_agent_submissions_api import AGENTS, LOG, MANIFEST, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db
OVER = "over the limit of 64 files in a solution"


def many(count: int) -> dict[str, str]:
    return {"solution.py": factories.CORRECT, **{f"lib/m{i}.py": "X = 1\n" for i in range(count - 1)}}


def solution_json(count: int) -> str:
    files = [{"path": path, "content": text} for path, text in many(count).items()]
    return json.dumps({"spec": {"entry_point": "solution.py::run"}, "sources": files})


def nothing_stored() -> bool:
    return not (Submission.objects.exists() or AgentSubmission.objects.exists())


def test_json_sources_over_the_count_are_refused(problem: Problem, cpu: Hardware) -> None:
    client = client_for(factories.make_user())
    response = post_sources(client, many(20_000))
    assert response.status_code == 400
    assert response.json()["sources"] == [f"sources: 20000 files, {OVER}"]
    assert post_sources(client, many(65)).json()["sources"] == [f"sources: 65 files, {OVER}"]
    assert nothing_stored()
    assert post_sources(client, many(64)).status_code == 201


def test_a_solution_json_over_the_count_is_refused(problem: Problem, cpu: Hardware) -> None:
    client = client_for(factories.make_user())
    sent = post_sources(client, {"solution.json": solution_json(65)}, entry="solution.json")
    assert sent.status_code == 400
    assert sent.json()["sources"] == [f"solution.json: sources: 65 files, {OVER}"]
    uploaded = upload(client, solution_json(65).encode(), name="solution.json")
    assert uploaded.status_code == 400
    assert uploaded.json()["file"] == [f"solution.json: sources: 65 files, {OVER}"]
    assert nothing_stored()
    assert upload(client, solution_json(64).encode(), name="solution.json").status_code == 201


def test_sources_over_the_size_are_refused(problem: Problem, cpu: Hardware) -> None:
    big = {"solution.py": factories.CORRECT, "a.py": "#" * 600_000, "b.py": "#" * 600_000}
    response = post_sources(client_for(factories.make_user()), big)
    assert response.status_code == 413
    assert "1200068 bytes, over the limit of 1024 KiB" in response.json()["sources"][0]
    assert nothing_stored()


def test_a_bundle_solution_json_over_the_count_is_refused(problem: Problem, cpu: Hardware) -> None:
    client = client_for(factories.make_user())
    files = {"manifest.json": json.dumps(MANIFEST), "logs/agent.log": LOG,
             "scale_shift/solution.json": solution_json(65)}
    for url in (AGENTS, f"{AGENTS}?validate=1"):
        response = client.post(url, {"file": SimpleUploadedFile("agent.zip", zipped(files)),
                                     "hardware": ["cpu"]}, format="multipart")
        assert response.status_code == 400
        assert response.json()["file"] == [f"scale_shift/solution.json: sources: 65 files, {OVER}"]
    assert nothing_stored()
