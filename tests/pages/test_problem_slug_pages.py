"""Pages show a problem's name as written and link to it by its slug; its page and its boards open
under the slug, and under the name as written too."""

from __future__ import annotations

import html
from urllib.parse import quote

import pytest
from django.test import Client

from leaderboard.models import Hardware
from tests.platform import factories

pytestmark = pytest.mark.django_db
NAME = "nvidia_Llama-3.3-Nemotron-70B-Select_rms_norm"
SLUG = "nvidia_llama-3-3-nemotron-70b-select_rms_norm"


def test_the_index_shows_the_name_and_links_the_slug(client: Client) -> None:
    factories.make_named_problem(NAME)
    body = client.get("/problems/").content.decode()
    assert f'<a href="/problems/{SLUG}/">{NAME}</a>' in body


@pytest.mark.parametrize("path", [SLUG, quote(NAME, safe="")])
def test_the_problem_page_opens_by_slug_or_name(client: Client, cpu: Hardware, path: str) -> None:
    problem = factories.make_named_problem(NAME)
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.7)
    response = client.get(f"/problems/{path}/")
    assert response.status_code == 200
    body = response.content.decode()
    assert f"<h2>{NAME} " in body
    assert f'href="/boards/problems/{SLUG}/cpu/"' in body


@pytest.mark.parametrize("path", [SLUG, quote(NAME, safe="")])
def test_the_board_page_opens_by_slug_or_name_and_links_the_slug(client: Client, cpu: Hardware,
                                                                 path: str) -> None:
    problem = factories.make_named_problem(NAME)
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.7)
    response = client.get(f"/boards/problems/{path}/cpu/")
    assert response.status_code == 200
    body = response.content.decode()
    assert f'<a href="/problems/{SLUG}/">{NAME}</a>' in body


def test_an_unknown_problem_page_is_a_404_naming_it(client: Client) -> None:
    response = client.get("/problems/no-such-problem/")
    assert response.status_code == 404
    assert html.escape("No problem is named 'no-such-problem'.") in response.content.decode()
    assert client.get("/boards/problems/no-such-problem/cpu/").status_code == 404
