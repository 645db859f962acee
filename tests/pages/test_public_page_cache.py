"""Whole pages kept for anonymous visitors (pages/page_cache.public_page): a page read again
costs no query and no rendering (a submission's pages: one, their version), per process and
through the shared cache; a team name and calibrated peaks show within page_cache.STALE seconds, a
published source at once; signed-in visitors, personal responses and failures are never kept or
served from a copy."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext

from accounts.services import set_team
from leaderboard.models import Hardware, Problem
from leaderboard.services import store_calibration
from pages import page_cache
from solarena import page_stamps
from submissions.services import set_published
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
PAGES = ("/", "/problems/", "/problems/scale_shift/?hardware=cpu", "/boards/problems/scale_shift/cpu/",
         "/boards/problems/scale_shift/cpu/?format=csv", "/boards/categories/l1/cpu/?sort=-score",
         "/boards/agents/cpu/", "/u/ada/", "/agents/ada/bot/", "/hardware/", "/hardware/cpu/")


def queries(client: Client, url: str) -> tuple[int, bytes]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured), response.content


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> Any:
    ada = factories.make_participant("ada")
    factories.make_agent_run(ada, "bot", {problem: 0.25}, cpu)
    return factories.make_scored(ada, problem, cpu, 0.5)


@pytest.mark.parametrize("url", PAGES)
def test_a_page_read_again_costs_no_query(client: Client, page_clock: PageClock, board: Any,
                                          url: str) -> None:
    made, first = queries(client, url)
    assert made >= 1
    page_clock.advance(page_cache.FRESH / 2)
    served, again = queries(client, url)
    assert served == 0, "no query at all"
    assert again == first


def test_a_submission_page_read_again_costs_its_version_at_most(client: Client, page_clock: PageClock,
                                                                 board: Any) -> None:
    for url in (f"/submissions/{board.submission_id}/", f"/submissions/{board.submission_id}/live/"):
        made, first = queries(client, url)
        assert made > 1
        assert queries(client, url) == (0, first), "the stamp holds: no query"
        page_clock.advance(page_stamps.LIFETIME)
        assert queries(client, url) == (1, first), "the stamp measured again; the page is the same"


def test_each_process_keeps_its_own_copy_of_the_shared_one(client: Client, page_clock: PageClock,
                                                           board: Any) -> None:
    url = "/boards/problems/scale_shift/cpu/"
    shared = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:6379/12",
              "KEY_PREFIX": secrets.token_hex(8)}  # this test's own keys, whoever else uses the database
    local = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "test-pages-local"}
    with override_settings(CACHES={"default": shared, page_cache.LOCAL: local}):
        try:
            made, first = queries(client, url)
            assert made > 1
            caches[page_cache.LOCAL].clear()  # another process: only the shared copy
            assert queries(client, url) == (0, first)
            caches["default"].clear()  # refilled the local copy on the way
            assert queries(client, url) == (0, first)
        finally:
            caches["default"].clear()
            caches[page_cache.LOCAL].clear()


def test_signed_in_visitors_get_their_own_page(client: Client, board: Any) -> None:
    url = "/problems/scale_shift/?hardware=cpu"
    assert "submit a solution" not in client.get(url).content.decode()
    signed_in = Client()
    signed_in.force_login(factories.make_user("eve_signed_in"))
    page = signed_in.get(url).content.decode()
    assert "submit a solution" in page and "eve_signed_in" in page, "not the anonymous copy"
    anonymous = client.get(url).content.decode()
    assert "submit a solution" not in anonymous and "eve_signed_in" not in anonymous, "nor eve's for others"


def test_a_new_team_name_shows(client: Client, page_clock: PageClock, board: Any) -> None:
    pages = ("/boards/problems/scale_shift/cpu/", "/boards/categories/l1/cpu/", "/u/ada/", "/")
    assert all("Kernel Wizards" not in client.get(url).content.decode() for url in pages)
    set_team(board.submission.owner, "Kernel Wizards")  # what the profile form does
    page_clock.later()
    for url in pages:
        assert "Kernel Wizards" in client.get(url).content.decode(), url


def test_new_calibrated_peaks_show(client: Client, page_clock: PageClock, board: Any) -> None:
    assert "1.234" not in client.get("/hardware/cpu/").content.decode()
    store_calibration("cpu", {"memory_bandwidth": 1.234e12})  # shown in TB/s
    page_clock.later()
    assert "1.234" in client.get("/hardware/cpu/").content.decode()


def test_a_published_source_shows_at_once(client: Client, board: Any) -> None:
    url = f"/submissions/{board.submission_id}/"
    marker = "def run("  # in the solution's source
    assert marker not in client.get(url).content.decode()
    set_published(board.submission, True)
    assert marker in client.get(url).content.decode()
    set_published(board.submission, False)
    assert marker not in client.get(url).content.decode()


def test_a_missing_page_is_not_kept(client: Client, board: Any) -> None:
    assert client.get("/u/grace/").status_code == 404
    factories.make_participant("grace")
    assert client.get("/u/grace/").status_code == 200


def counted(calls: list[HttpRequest], respond: Any = None) -> Any:
    def view(request: HttpRequest) -> HttpResponse:
        calls.append(request)
        return respond(request) if respond else HttpResponse(f"call {len(calls)}")

    return page_cache.public_page(params=("sort",))(view)


@pytest.mark.parametrize("headers", [{}, {"HTTP_AUTHORIZATION": "Bearer sa_x"}])
def test_only_anonymous_reads_are_served_from_a_copy(headers: dict[str, str]) -> None:
    calls: list[HttpRequest] = []
    view = counted(calls)
    factory = RequestFactory()
    first = view(factory.get("/page/")).content
    assert view(factory.get("/page/")).content == first and len(calls) == 1
    assert view(factory.get("/page/?sort=user")).content != first, "the query is part of the key"
    view(factory.post("/page/"))
    personal = factory.get("/page/", **headers)
    if not headers:
        personal.COOKIES["sessionid"] = "a-session"
    assert view(personal).content != first, "a signed-in visitor gets the view itself"
    assert len(calls) == 4


@pytest.mark.parametrize("personal", [
    lambda request: HttpResponse(get_token(request)),  # a CSRF token is one visitor's
    lambda request: _with_cookie(HttpResponse("hello")),
    lambda request: HttpResponse("gone", status=404),
])
def test_personal_and_failed_responses_are_not_kept(personal: Any) -> None:
    calls: list[HttpRequest] = []
    view = counted(calls, personal)
    for _ in range(2):
        view(RequestFactory().get("/page/"))
    assert len(calls) == 2


def _with_cookie(response: HttpResponse) -> HttpResponse:
    response.set_cookie("seen", "1")
    return response
