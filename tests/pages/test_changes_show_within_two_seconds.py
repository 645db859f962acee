"""A change shows on the page it touches within page_cache.STALE (2) seconds, though anonymous
visitors are served kept copies: a copy younger than FRESH is served as it is; one between FRESH
and STALE is served while the first request to see it has the page made again once its response
is sent; none older than STALE is ever served. Checked on every kind of page kept so, with the
page cache's clock moved, and once on the real clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import set_team
from leaderboard.models import Hardware, Problem
from leaderboard.services import store_calibration
from pages import page_cache
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
Change = Callable[[Problem, Hardware], Any]


def grace_scores(problem: Problem, cpu: Hardware) -> None:
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.9)


def ada() -> Any:
    return get_user_model().objects.get(username="ada")


def entries_on_index(page: str) -> str:
    """The problems index's last column (board entries) in scale_shift's row."""
    row = page[page.index('href="/problems/scale_shift/"'):].split("</tr>")[0]
    return row.rsplit('<td class="num">', 1)[1].split("<")[0]


def scored_on_hardware_page(page: str) -> str:
    return page[page.index("<dt>scored</dt>"):].split("</dd>")[0].removeprefix("<dt>scored</dt><dd>")


# url: (the change, what the page shows of it)
CASES: dict[str, tuple[Change, Callable[[str], bool]]] = {
    "/": (grace_scores, lambda page: "grace" in page),
    "/problems/": (grace_scores, lambda page: entries_on_index(page) == "2"),
    "/problems/scale_shift/?hardware=cpu": (grace_scores, lambda page: "grace" in page),
    "/boards/problems/scale_shift/cpu/": (grace_scores, lambda page: "grace" in page),
    "/boards/problems/scale_shift/cpu/?format=csv": (grace_scores, lambda page: "grace" in page),
    "/boards/categories/l1/cpu/?sort=-score": (grace_scores, lambda page: "grace" in page),
    "/boards/agents/cpu/": (lambda problem, cpu: factories.make_agent_run(
        factories.make_participant("grace"), "rival", {problem: 0.5}, cpu), lambda page: "rival" in page),
    "/u/ada/": (lambda problem, cpu: set_team(ada(), "Kernel Wizards"),
                lambda page: "Kernel Wizards" in page),
    "/agents/ada/bot/": (lambda problem, cpu: factories.make_agent_run(
        ada(), "bot", {problem: 0.75}, cpu, version="2"), lambda page: "0.750" in page),
    "/hardware/": (lambda problem, cpu: store_calibration("cpu", {"memory_bandwidth": 1.234e12}),
                   lambda page: "1.234" in page),
    # scored on the cpu: the agent's, ada's, then grace's
    "/hardware/cpu/": (grace_scores, lambda page: scored_on_hardware_page(page) == "3"),
}


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    factories.make_agent_run(ada, "bot", {problem: 0.25}, cpu)
    factories.make_scored(ada, problem, cpu, 0.5)


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.parametrize("url", list(CASES))
def test_a_copy_is_served_while_it_is_made_again(client: Client, page_clock: PageClock, board: None,
                                                 problem: Problem, cpu: Hardware, url: str) -> None:
    change, shows = CASES[url]
    assert not shows(page(client, url))
    change(problem, cpu)
    assert not shows(page(client, url)), "a copy younger than FRESH, served as it is"
    page_clock.advance(page_cache.FRESH)
    assert not shows(page(client, url)), "served once more, and made again after this response"
    assert shows(page(client, url))


@pytest.mark.parametrize("url", list(CASES))
def test_no_copy_older_than_stale_is_served(client: Client, page_clock: PageClock, board: None,
                                            problem: Problem, cpu: Hardware, url: str) -> None:
    change, shows = CASES[url]
    assert not shows(page(client, url))
    change(problem, cpu)
    page_clock.advance(page_cache.STALE)
    assert shows(page(client, url))


def test_on_the_real_clock(client: Client, board: None, problem: Problem, cpu: Hardware) -> None:
    url = "/boards/problems/scale_shift/cpu/"
    assert "grace" not in page(client, url)
    grace_scores(problem, cpu)
    changed = time.monotonic()
    while "grace" not in page(client, url):
        assert time.monotonic() - changed < page_cache.STALE, "not shown within STALE seconds"
        time.sleep(0.05)
