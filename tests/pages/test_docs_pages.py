"""The project's docs are pages: /docs/ lists every file of docs/, /docs/<name>/ renders one (its
links to other docs lead to their pages), an unknown name is a 404 that says where the list is,
and the pages that use a term link to its doc."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import ROOT
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_the_index_lists_every_doc(client: Client) -> None:
    page = client.get("/docs/").content.decode()
    for path in (ROOT / "docs").glob("*.md"):
        assert f'href="/docs/{path.stem}/"' in page, path.name
    assert "Scoring" in page


def test_a_doc_is_rendered_and_its_links_to_other_docs_lead_to_their_pages(client: Client) -> None:
    response = client.get("/docs/scoring/")
    page = response.content.decode()
    assert response.status_code == 200 and "<h1>Scoring</h1>" in page
    assert "<table>" in page
    assert "(docs/security.md, " in (ROOT / "docs" / "measuring.md").read_text()
    measuring = client.get("/docs/measuring/").content.decode()
    assert '<a href="/docs/security/" rel="nofollow noopener noreferrer">docs/security.md</a>' in measuring
    assert '.md"' not in measuring  # no link is left pointing at a file


def test_an_unknown_doc_is_a_404_that_points_to_the_list(client: Client) -> None:
    for name in ("nothing-here", "README"):
        response = client.get(f"/docs/{name}/")
        assert response.status_code == 404 and "/docs/ lists them" in response.content.decode()
    assert client.get("/docs/..%2Fsolarena%2Fsettings/").status_code == 404


def test_the_home_page_says_what_a_score_means_and_links_the_docs(client: Client) -> None:
    page = client.get("/").content.decode()
    assert "1 when a kernel reaches the hardware's speed-of-light" in page
    assert 'href="/docs/scoring/"' in page and 'href="/docs/measuring/"' in page
    assert 'href="/docs/"' in page  # in every page's navigation


def test_the_pages_that_use_a_format_or_the_api_link_its_doc(client: Client) -> None:
    """The submit form's solution.json, the token section's API, a problem's definition and a
    workload's status each link the doc that defines them."""
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    assert 'href="/docs/problem-format/"' in client.get(f"/problems/{problem.slug}/").content.decode()
    submission = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert '<th><a href="/docs/result-format/">status</a></th>' in submission
    client.force_login(factories.make_user())
    form = client.get("/submit/").content.decode()
    assert '<a href="/docs/solution-format/">solution.json</a>' in form
    profile = client.get("/accounts/profile/").content.decode()
    assert 'href="/docs/api/"' in profile and 'href="/api/v1/docs/"' in profile
    for doc in ("problem-format", "result-format", "solution-format", "api"):
        assert client.get(f"/docs/{doc}/").status_code == 200, doc
