"""The OpenAPI document is generated from the code without warnings, validates, and is served
with an interactive page at /api/v1/docs/."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from tests.api.support import client_for

pytestmark = pytest.mark.django_db
ENDPOINTS = {
    "/api/v1/problems/", "/api/v1/problems/{slug}/", "/api/v1/hardware/", "/api/v1/hardware/{slug}/",
    "/api/v1/submissions/", "/api/v1/submissions/upload/", "/api/v1/submissions/{id}/",
    "/api/v1/submissions/{id}/cancel/",
    "/api/v1/leaderboards/{problem}/{hardware}/", "/api/v1/agent-submissions/",
    "/api/v1/agent-submissions/{id}/", "/api/v1/leaderboards/agents/",
    "/api/v1/evaluations/{id}/trace/", "/api/v1/submissions/{id}/profile/{hardware}/{workload}.ncu-rep",
}


def test_schema_generates_without_warnings_and_validates(tmp_path: Path) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    assert ENDPOINTS <= set(schema["paths"])
    assert schema["components"]["securitySchemes"]["ApiToken"] == {"type": "http", "scheme": "bearer"}
    create = schema["paths"]["/api/v1/submissions/"]["post"]
    assert set(create["requestBody"]["content"]) == {"application/json"}  # one body per operation
    assert {"201", "413", "429"} <= set(create["responses"])
    upload = schema["paths"]["/api/v1/submissions/upload/"]["post"]
    assert set(upload["requestBody"]["content"]) == {"multipart/form-data"}
    assert {"201", "413", "429"} <= set(upload["responses"])
    agent = schema["paths"]["/api/v1/agent-submissions/"]["post"]
    assert set(agent["requestBody"]["content"]) == {"multipart/form-data"}  # no url-encoded form
    trace = schema["paths"]["/api/v1/evaluations/{id}/trace/"]["get"]["responses"]["200"]
    assert set(trace["content"]) == {"application/x-ndjson", "application/json"}


def test_schema_and_docs_are_served() -> None:
    response = client_for(None).get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "solarena API"
    docs = client_for(None).get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert b"cdn" not in docs.content.lower()  # the page's scripts come from this server
