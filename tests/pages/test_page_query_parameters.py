"""A kept page's URL holds only the query parameters its view reads: a request with another, or
with one twice, is redirected to the URL without it (so made-up parameters neither make pages
again nor fill the cache), and the order of the parameters does not make another copy."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from leaderboard.models import Hardware, Problem
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
BOARD = "/boards/problems/scale_shift/cpu/"


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> None:
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)


@pytest.mark.parametrize(("asked", "canonical"), [
    (f"{BOARD}?utm_source=mail&sort=user", f"{BOARD}?sort=user"),
    (f"{BOARD}?sort=user&sort=-score", f"{BOARD}?sort=-score"),
    ("/?cachebuster=123", "/"),
    ("/problems/scale_shift/?hardware=cpu&x=1", "/problems/scale_shift/?hardware=cpu"),
    ("/hardware/cpu/?v=2", "/hardware/cpu/"),
])
def test_unknown_parameters_are_redirected_away(client: Client, board: None, asked: str,
                                                canonical: str) -> None:
    response = client.get(asked)
    assert response.status_code == 302 and response["Location"] == canonical
    assert client.get(canonical).status_code == 200


def test_a_submission_page_takes_no_parameters(client: Client, board: None, problem: Problem) -> None:
    submission = problem.submissions.get()
    response = client.get(f"/submissions/{submission.pk}/?token=abc")
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"


def test_signed_in_visitors_are_redirected_alike(client: Client, board: None) -> None:
    client.force_login(factories.make_user("eve"))
    response = client.get(f"{BOARD}?sort=user&ref=x")
    assert response.status_code == 302 and response["Location"] == f"{BOARD}?sort=user"


def test_the_order_of_parameters_makes_no_other_copy(client: Client, page_clock: PageClock,
                                                     board: None) -> None:
    first = client.get(f"{BOARD}?format=csv&sort=user")
    with CaptureQueriesContext(connection) as captured:
        again = client.get(f"{BOARD}?sort=user&format=csv")
    assert len(captured) == 0 and again.content == first.content
