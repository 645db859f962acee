"""A board's pages (the board, its problem's page, its category's board and CSV) are kept with the
generations of what they show (solarena.changes): served with no query while nothing changed,
however old (up to MAX_AGE); made again by the writer's process as soon as a change commits, so
readers find them current; and, where that remake did not happen, shown within STALE seconds of
the change all the same."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.services import set_team
from leaderboard.models import Hardware, Problem
from pages import page_cache, remakes
from solarena import changes
from solarena.celery import app
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("shared_cache")]
BOARD = "/boards/problems/scale_shift/cpu/"
PROBLEM = "/problems/scale_shift/?hardware=cpu"
CATEGORY = "/boards/categories/l1/cpu/"
CATEGORY_CSV = "/boards/categories/l1/cpu/?format=csv&task_type=from_reference"
PAGES = [BOARD, PROBLEM, CATEGORY, CATEGORY_CSV]


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> None:
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)


@pytest.fixture
def no_remakes() -> Iterator[None]:
    changes.moved.disconnect(dispatch_uid="pages.remake_boards")
    yield
    changes.moved.connect(remakes.remake_boards, dispatch_uid="pages.remake_boards")


def page(client: Client, url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), len(queries)


def grace_scores(problem: Problem, cpu: Hardware) -> None:
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.9)


@pytest.mark.parametrize("url", PAGES)
def test_a_copy_of_a_board_nothing_changed_on_is_served_past_stale(client: Client, page_clock: PageClock,
                                                                   board: None, url: str) -> None:
    page(client, url)
    page_clock.advance(page_cache.MAX_AGE - 1)
    assert page(client, url)[1] == 0, "made again though nothing it shows changed"


@pytest.mark.parametrize("url", PAGES)
def test_the_writers_process_makes_a_changed_boards_pages_again(client: Client, page_clock: PageClock,
                                                                board: None, problem: Problem,
                                                                cpu: Hardware, url: str) -> None:
    assert "grace" not in page(client, url)[0]
    grace_scores(problem, cpu)
    assert remakes.wait_until_done()
    page_clock.advance(page_cache.STALE + 5)
    shown, queries = page(client, url)
    assert "grace" in shown
    assert queries == 0, "the reader made the page: the writer's remake was not there"


@pytest.mark.usefixtures("no_remakes")
def test_without_the_writers_remake_a_change_shows_within_stale(client: Client, page_clock: PageClock,
                                                                board: None, problem: Problem,
                                                                cpu: Hardware) -> None:
    page(client, BOARD)
    page_clock.advance(10 * page_cache.STALE)  # the copy is old but current
    grace_scores(problem, cpu)
    assert "grace" not in page(client, BOARD)[0], "served as it is: the writer may be making it"
    page_clock.advance(page_cache.FRESH)
    assert "grace" not in page(client, BOARD)[0], "served: the change is younger than STALE"
    assert "grace" in page(client, BOARD)[0], "made again once the stale copy's response was sent"


@pytest.mark.usefixtures("no_remakes")
def test_no_copy_is_served_stale_seconds_after_a_change(client: Client, page_clock: PageClock,
                                                        board: None, problem: Problem, cpu: Hardware) -> None:
    page(client, BOARD)
    grace_scores(problem, cpu)
    page_clock.advance(page_cache.STALE)
    assert "grace" in page(client, BOARD)[0]


def test_a_new_team_name_shows_within_stale(client: Client, page_clock: PageClock, board: None) -> None:
    page(client, BOARD)
    set_team(get_user_model().objects.get(username="ada"), "Kernel Wizards")
    page_clock.advance(page_cache.STALE)
    assert "Kernel Wizards" in page(client, BOARD)[0]


def test_a_change_no_writer_names_shows_within_max_age(client: Client, page_clock: PageClock,
                                                       board: None) -> None:
    page(client, BOARD)
    get_user_model().objects.filter(username="ada").update(username="quiet_ada")  # no signal reports it
    page_clock.advance(page_cache.STALE)
    assert "quiet_ada" not in page(client, BOARD)[0], "nothing told the page"
    page_clock.advance(page_cache.MAX_AGE)
    assert "quiet_ada" in page(client, BOARD)[0]


def test_without_a_shared_cache_pages_go_by_their_age(settings: Any, client: Client, page_clock: PageClock,
                                                      board: None, problem: Problem, cpu: Hardware) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    page(client, BOARD)
    page_clock.advance(page_cache.STALE)
    assert page(client, BOARD)[1] > 0, "a per-process cache cannot hear another process's writes"


def test_the_writer_makes_again_only_the_pages_kept_lately(client: Client, page_clock: PageClock, board: None,
                                                          problem: Problem, cpu: Hardware) -> None:
    page(client, BOARD)
    grace_scores(problem, cpu)
    assert remakes.wait_until_done()
    shown, queries = page(client, PROBLEM)
    assert "grace" in shown and queries > 0, "the problem's page, which nobody asked for, was made"


@pytest.mark.usefixtures("no_remakes")
def test_the_writer_leaves_a_page_a_reader_made_since_the_change(client: Client, page_clock: PageClock,
                                                                board: None, problem: Problem,
                                                                cpu: Hardware) -> None:
    """A writer busy with other boards comes to this one after a reader made it again: it is current."""
    page(client, BOARD)
    grace_scores(problem, cpu)
    page_clock.later()
    assert page(client, BOARD)[1] > 0, "the reader made it"
    with CaptureQueriesContext(connection) as queries:
        page_cache.remake(BOARD)
    assert len(queries) == 0, "made twice"


@pytest.mark.usefixtures("no_remakes")
def test_the_writer_leaves_a_page_another_process_is_making(client: Client, page_clock: PageClock,
                                                           board: None, problem: Problem, cpu: Hardware,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    page(client, BOARD)
    grace_scores(problem, cpu)
    lock = page_cache._lock
    monkeypatch.setattr(page_cache, "_lock", lambda key: False)  # a reader's remake holds it
    with CaptureQueriesContext(connection) as queries:
        page_cache.remake(BOARD)
    assert len(queries) == 0, "made beside the other process"
    monkeypatch.setattr(page_cache, "_lock", lock)
    page_cache.remake(BOARD)  # once the lock is free, as after the reader's remake failed
    page_clock.advance(page_cache.STALE + 5)
    shown, queries_after = page(client, BOARD)
    assert "grace" in shown and queries_after == 0


@app.task(name="tests.pages.score_in_a_task")
def score_in_a_task(problem_id: int, hardware_id: int) -> None:
    """An evaluation's ingestion, as a worker runs it."""
    grace_scores(Problem.objects.get(pk=problem_id), Hardware.objects.get(pk=hardware_id))


def test_inside_a_workers_task_the_pages_are_made_before_it_ends(client: Client, page_clock: PageClock,
                                                                 board: None, problem: Problem, cpu: Hardware,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """No thread beside the worker's next evaluation: the remake is done when the task returns."""
    monkeypatch.setattr(remakes, "_thread", None)
    monkeypatch.setattr(remakes, "_make_forever", lambda: None)  # a remaking thread would make nothing
    page(client, BOARD)
    score_in_a_task.apply(args=[problem.pk, cpu.pk]).get()
    page_clock.advance(page_cache.STALE + 5)
    shown, queries = page(client, BOARD)
    assert "grace" in shown and queries == 0


@pytest.fixture
def other(db: Any) -> Problem:
    """A problem of another category (made before `problem`, which takes the fixture's name)."""
    return factories.make_named_problem("other_thing", category="l2")


@pytest.fixture
def sibling(db: Any) -> Problem:
    """Another problem of the fixture problem's category."""
    return factories.make_named_problem("sibling_thing", category="l1")


def test_a_change_on_another_categorys_board_leaves_a_category_board_current(
        other: Problem, client: Client, page_clock: PageClock, board: None, cpu: Hardware) -> None:
    grace = factories.make_participant("grace")  # a new name moves every page's names
    page(client, CATEGORY)
    factories.make_scored(grace, other, cpu, 0.9)
    assert remakes.wait_until_done()
    page_clock.advance(page_cache.MAX_AGE - 1)
    assert page(client, CATEGORY)[1] == 0, "made again though nothing it shows changed"


def test_pages_that_several_changed_boards_share_are_made_once(
        sibling: Problem, monkeypatch: pytest.MonkeyPatch, problem: Problem, cpu: Hardware) -> None:
    made: list[str] = []
    monkeypatch.setattr(page_cache, "remake", made.append)
    changes.changed(changes.board(problem.pk, cpu.pk), changes.board(sibling.pk, cpu.pk))
    assert remakes.wait_until_done()
    assert made.count(CATEGORY) == 1, made
    assert "/boards/problems/sibling_thing/cpu/" in made and BOARD in made
