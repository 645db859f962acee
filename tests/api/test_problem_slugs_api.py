"""The API names a problem by its slug in paths and answers, and takes the slug or the name as written
wherever a client names one: problem and board paths, a submission's `problem`, a bundle's folders."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock
from urllib.parse import quote

import pytest

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import api_user, client_for, post_sources
from tests.api.test_agent_submissions_api import MANIFEST, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db
FLUX = "black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation"
FLUX_SLUG = "black-forest-labs_flux-1-schnell_flux_rope_apply_rotation"


@pytest.fixture
def flux(db: Any) -> Problem:
    return factories.make_named_problem(FLUX)


@pytest.mark.parametrize("identifier", [FLUX_SLUG, FLUX])
def test_a_problem_is_read_by_slug_or_by_name(flux: Problem, identifier: str) -> None:
    response = client_for(None).get(f"/api/v1/problems/{quote(identifier, safe='')}/")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["name"], body["slug"], body["definition"]["name"]) == (FLUX, FLUX_SLUG, "scale_shift")
    listed = client_for(None).get("/api/v1/problems/").json()["results"]
    assert [(p["name"], p["slug"]) for p in listed] == [(FLUX, FLUX_SLUG)]


def test_a_name_with_spaces_is_read_url_quoted(db: Any) -> None:
    factories.make_named_problem("Fused Add + RMSNorm")
    response = client_for(None).get(f"/api/v1/problems/{quote('Fused Add + RMSNorm', safe='')}/")
    assert response.status_code == 200 and response.json()["slug"] == "fused-add-rmsnorm"


def test_an_unknown_problem_is_a_404_naming_it(flux: Problem) -> None:
    response = client_for(None).get("/api/v1/problems/black-forest-labs/")
    assert response.status_code == 404
    assert response.json()["detail"] == "no problem 'black-forest-labs'"
    board = client_for(None).get("/api/v1/leaderboards/nope/cpu/")
    assert board.status_code == 404 and "no problem 'nope'" in board.json()["detail"]


@pytest.mark.parametrize("identifier", [FLUX_SLUG, FLUX])
def test_a_board_is_read_by_slug_or_by_name(flux: Problem, cpu: Hardware, identifier: str) -> None:
    factories.make_scored(factories.make_participant("ada"), flux, cpu, 0.7)
    response = client_for(None).get(f"/api/v1/leaderboards/{quote(identifier, safe='')}/cpu/")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["problem"], body["problem_slug"]) == (FLUX, FLUX_SLUG)
    assert [e["user"] for e in body["entries"]] == ["ada"]


@pytest.mark.parametrize("identifier", [FLUX_SLUG, FLUX])
def test_a_submission_names_its_problem_by_slug_or_by_name(flux: Problem, cpu: Hardware,
                                                          identifier: str) -> None:
    with mock.patch.object(evaluations, "send"):
        response = post_sources(client_for(api_user()), problem=identifier)
    assert response.status_code == 201, response.json()
    assert (response.json()["problem"], response.json()["problem_slug"]) == (FLUX, FLUX_SLUG)
    assert Submission.objects.get().problem == flux


def bundle(*problems: str) -> bytes:
    return zipped({"manifest.json": json.dumps({**MANIFEST, "logs": []}),
                   **{f"{name}.py": factories.CORRECT for name in problems}})


def test_a_bundle_names_problems_by_slug_or_by_name(flux: Problem, cpu: Hardware) -> None:
    factories.make_named_problem("Fused RMSNorm")
    with mock.patch.object(evaluations, "send"):
        response = send_bundle(client_for(api_user()), bundle(FLUX, "fused-rmsnorm"))
    assert response.status_code == 201, response.json()
    assert sorted((s["problem"], s["problem_slug"]) for s in response.json()["submissions"]) == [
        ("Fused RMSNorm", "fused-rmsnorm"), (FLUX, FLUX_SLUG)]


def test_a_bundle_naming_one_problem_twice_stores_nothing(flux: Problem, cpu: Hardware) -> None:
    response = send_bundle(client_for(api_user()), bundle(FLUX, FLUX_SLUG))
    assert response.status_code == 400
    [message] = response.json()["file"]
    assert f"{FLUX!r} and {FLUX_SLUG!r} in the bundle both name the problem {FLUX!r}" in message
    assert not (AgentSubmission.objects.exists() or Submission.objects.exists())
