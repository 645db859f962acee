"""solarena.change_feed on a real Redis: a process that hears the writers' word trusts what it read
of the shared cache (no round trip past REFRESH) until a writer names the subject; writers publish
what they move (page generations, page stamps); a break in the listening makes the process read
again every REFRESH until it listens again."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.core.cache import cache

from solarena import change_feed, changes, page_stamps
from tests.pages.conftest import CountedCache

pytestmark = pytest.mark.usefixtures("shared_cache")
BOARD = changes.board(7, 1)


def eventually(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def feed(settings: Any) -> str:
    settings.CHANGE_FEED = True
    change_feed.listen()
    assert eventually(change_feed.listening), "the listener subscribed"
    url = change_feed.location()
    assert url is not None
    return url


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountedCache:
    spy = CountedCache()
    monkeypatch.setattr(changes, "cache", spy)
    return spy


@pytest.fixture
def heard(feed: str) -> Iterator[Callable[[], list[str]]]:
    """What a second listener hears on the feed's channel."""
    pubsub = redis.Redis.from_url(feed).pubsub()
    pubsub.subscribe(change_feed.channel(feed))
    def subscribed() -> bool:
        message = pubsub.get_message(timeout=0.05)
        return message is not None and message["type"] == "subscribe"

    assert eventually(subscribed)
    got: list[str] = []

    def messages() -> list[str]:
        while (message := pubsub.get_message(timeout=0.05)) is not None:
            got.extend(message["data"].decode().split("\n"))
        return got

    yield messages
    pubsub.close()


def another_process_moves(subject: str, publish: bool = True) -> None:
    """What another process's writer does (changes._move), with or without its word on the feed."""
    cache.add(subject, 0, None)
    generation = cache.incr(subject)
    cache.set(f"{subject}@{generation}", changes.clock(), changes.REMEMBERED)
    if publish:
        change_feed.publish([subject])


def test_a_reading_is_trusted_until_a_writer_names_it(feed: str, counted: CountedCache) -> None:
    assert changes.generations([BOARD]) == {BOARD: 0}
    time.sleep(2 * changes.REFRESH)
    assert changes.generations([BOARD]) == {BOARD: 0}
    assert len(counted.asked) == 1, "past REFRESH, on the feed's word: no round trip"
    another_process_moves(BOARD, publish=False)
    time.sleep(2 * changes.REFRESH)
    assert changes.generations([BOARD]) == {BOARD: 0}, "a move nobody published is not heard"
    another_process_moves(BOARD)
    assert eventually(lambda: changes.generations([BOARD]) == {BOARD: 2}, seconds=2.0)
    assert counted.asked[-1] == [BOARD]


def test_a_stamp_is_trusted_until_its_drop_is_heard(feed: str) -> None:
    subject = page_stamps.submission(41)
    measured: list[int] = []

    def measure() -> tuple[str, bool]:
        measured.append(1)
        return f"v{len(measured)}", True  # settled: kept SETTLED seconds

    assert page_stamps.read(subject, measure) == "v1"
    assert page_stamps.read(subject, measure) == "v1"  # read back from the cache, as kept there
    time.sleep(2 * changes.REFRESH)
    asked: list[list[str]] = []
    spy = CountedCache()
    spy.asked = asked
    original = page_stamps.cache
    page_stamps.cache = spy
    try:
        assert page_stamps.read(subject, measure) == "v1"
        assert asked == [], "past REFRESH, on the feed's word: no round trip"
        cache.delete(subject)  # another process's writer drops it (page_stamps.drop, over there)
        cache.set(f"{subject}:dropped", page_stamps.clock(), page_stamps.SETTLED + 1)
        change_feed.publish([subject])
        assert eventually(lambda: page_stamps.read(subject, measure) == "v2", seconds=2.0)
    finally:
        page_stamps.cache = original


def test_writers_publish_what_they_move(heard: Callable[[], list[str]]) -> None:
    changes.changed(BOARD)  # outside a transaction: at once
    page_stamps.drop(page_stamps.submission(5))
    page_stamps.drop_all()
    assert eventually(lambda: {BOARD, page_stamps.submission(5), change_feed.EVERYTHING} <= set(heard()))


def test_a_break_in_listening_reads_again_every_refresh(feed: str) -> None:
    assert changes.generations([BOARD]) == {BOARD: 0}
    admin = redis.Redis.from_url(feed)
    [listener] = [c for c in admin.client_list() if c["name"] == change_feed.listener_name()]
    admin.client_kill_filter(_id=listener["id"])
    assert eventually(lambda: not change_feed.listening(), seconds=2.0)
    another_process_moves(BOARD, publish=False)
    time.sleep(changes.REFRESH)
    if not change_feed.listening():  # it listens again after RETRY_SECONDS, trusting nothing read before
        assert changes.generations([BOARD]) == {BOARD: 1}, "read again after REFRESH"
    assert eventually(change_feed.listening), "listening again"
    assert changes.generations([BOARD]) == {BOARD: 1}, "a reading from before the break is not trusted"


def test_a_writer_publishes_with_its_own_listening_off(heard: Callable[[], list[str]], settings: Any) -> None:
    settings.CHANGE_FEED = False  # a worker set so, while the web processes listen
    changes.changed(BOARD)
    assert eventually(lambda: BOARD in heard())


def test_a_listener_stops_once_its_cache_is_not_the_processs(settings: Any) -> None:
    """A cache nothing answers (a test's, here) gets a listener that retries; once the settings name
    another cache, it ends rather than retry (and log) for the rest of the process's life."""
    settings.CHANGE_FEED = True
    shared = settings.CACHES
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0"}}  # the discard port: nothing listens
    change_feed.listen()
    listener = change_feed._state.thread
    assert listener is not None and listener.is_alive()
    assert not change_feed.listening()
    settings.CACHES = shared
    settings.CHANGE_FEED = False
    listener.join(timeout=3 * change_feed.RETRY_SECONDS + 3)
    assert not listener.is_alive()
