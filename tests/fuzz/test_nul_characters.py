"""A NUL character (%00) in a path or query string gets a 400 naming it, on the API and on the pages,
where it used to reach PostgreSQL and answer 500 (found by the schema fuzzer); a manifest string
holding one (a \\u0000 escape) refuses the bundle."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from submissions.models import AgentSubmission
from tests.api.support import client_for
from tests.fuzz.archives import MANIFEST, files, zip_of
from tests.platform import factories

pytestmark = pytest.mark.django_db
API = ["/api/v1/problems/a%00b/", "/api/v1/hardware/a%00b/", "/api/v1/leaderboards/a%00b/cpu/",
       "/api/v1/leaderboards/agents/?hardware=cpu%00", "/api/v1/problems/?category=%00",
       "/api/v1/problems/?x%00=1"]
PAGES = ["/problems/a%00b/", "/u/a%00b/", "/boards/problems/a%00/cpu/", "/agents/a%00/b/"]


@pytest.fixture(autouse=True)
def platform(db: Any) -> None:
    factories.make_hardware("cpu")
    factories.make_problem()


@pytest.mark.parametrize("url", API)
def test_the_api_answers_400_in_json(url: str) -> None:
    response = client_for(None).get(url)
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]


@pytest.mark.parametrize("url", PAGES)
def test_the_pages_answer_400(url: str) -> None:
    response = Client().get(url)
    assert response.status_code == 400
    assert b"NUL character" in response.content


def test_the_same_names_without_nul_still_answer() -> None:
    assert client_for(None).get("/api/v1/problems/scale_shift/").status_code == 200
    assert Client().get("/problems/scale_shift/").status_code == 200


@pytest.mark.parametrize("key", ["name", "version", "model", "description"])
def test_a_manifest_string_with_nul_refuses_the_bundle(key: str) -> None:
    manifest = json.dumps({**MANIFEST, key: "a\u0000b"})
    upload = SimpleUploadedFile("agent.zip", zip_of(files({"manifest.json": manifest})))
    response = client_for(factories.make_participant()).post(
        "/api/v1/agent-submissions/", {"file": upload, "hardware": ["cpu"]}, format="multipart")
    assert response.status_code == 400
    assert response.json()["file"] == [f"manifest.json: '{key}' must not contain NUL characters"]
    assert not AgentSubmission.objects.exists()
