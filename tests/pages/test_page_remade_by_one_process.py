"""A page kept for a while (pages/page_cache.py) is made again by one process at a time,
after the response that found its copy older than FRESH was sent, while every other request is
served the copy; a copy older than STALE is never served, even while a remake is under way."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from pages import page_cache
from tests.pages.conftest import PageClock

pytestmark = pytest.mark.django_db  # a response's close() ends the request: Django then checks its connection


@pytest.fixture
def calls() -> list[HttpRequest]:
    return []


@pytest.fixture
def view(calls: list[HttpRequest]) -> Callable[[HttpRequest], HttpResponse]:
    def made(request: HttpRequest) -> HttpResponse:
        calls.append(request)
        return HttpResponse(f"made {len(calls)}")

    return page_cache.public_page()(made)


def get(view: Callable[[HttpRequest], HttpResponse]) -> HttpResponse:
    return view(RequestFactory().get("/page/"))


def test_one_request_makes_it_again_after_its_response(view: Callable[[HttpRequest], HttpResponse],
                                                       calls: list[HttpRequest],
                                                       page_clock: PageClock) -> None:
    assert get(view).content == b"made 1"
    page_clock.advance(page_cache.FRESH)
    remaking = get(view)
    assert remaking.content == b"made 1" and len(calls) == 1, "the copy, served before any remaking"
    other = get(view)  # another process meanwhile
    assert other.content == b"made 1"
    other.close()
    assert len(calls) == 1, "only the first to find it old makes it again"
    remaking.close()  # the WSGI server has sent it
    assert len(calls) == 2
    assert get(view).content == b"made 2"


def test_a_copy_older_than_stale_is_not_served_during_a_remake(view: Callable[[HttpRequest], HttpResponse],
                                                               calls: list[HttpRequest],
                                                               page_clock: PageClock) -> None:
    get(view)
    page_clock.advance(page_cache.FRESH)
    stuck = get(view)  # its process never gets to the remake
    page_clock.advance(page_cache.STALE - page_cache.FRESH)
    assert get(view).content == b"made 2", "made by the request itself"
    stuck.close()
    assert len(calls) == 3


def test_a_failed_remake_leaves_the_copy(calls: list[HttpRequest], page_clock: PageClock) -> None:
    def failing(request: HttpRequest) -> HttpResponse:
        calls.append(request)
        if len(calls) > 1:
            raise RuntimeError("the database went away")
        return HttpResponse("made 1")

    view = page_cache.public_page()(failing)
    get(view)
    page_clock.advance(page_cache.FRESH)
    get(view).close()
    assert len(calls) == 2
    assert get(view).content == b"made 1", "the copy stands until STALE"
