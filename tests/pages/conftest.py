"""Fixtures the page tests share: a problem and the cpu hardware to submit to, and an empty page
cache for each test (rows of one test must not meet what another cached under the same ids)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches

from leaderboard.models import Hardware, Problem
from pages import page_cache
from solarena import changes, page_stamps
from tests.platform import factories


@pytest.fixture
def problem(db: Any) -> Problem:
    return factories.make_problem()


@pytest.fixture
def cpu(db: Any) -> Hardware:
    return factories.make_hardware("cpu")


@pytest.fixture(autouse=True)
def empty_page_cache() -> Iterator[None]:
    for cache in caches.all():
        cache.clear()
    page_cache.forget_checks()
    changes.forget()
    page_stamps.forget_recent()
    yield
    for cache in caches.all():
        cache.clear()
    page_cache.forget_checks()
    changes.forget()
    page_stamps.forget_recent()


class PageClock:
    """The clocks of pages.page_cache and solarena.page_stamps, stopped: pages and their stamps age
    only when a test moves them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = time.time()
        monkeypatch.setattr(page_cache, "clock", lambda: self.now)
        monkeypatch.setattr(page_stamps, "clock", lambda: self.now)
        monkeypatch.setattr(changes, "clock", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def later(self) -> None:
        """As long after as a change may take to show on every page."""
        self.advance(page_cache.STALE)


@pytest.fixture
def page_clock(monkeypatch: pytest.MonkeyPatch) -> PageClock:
    return PageClock(monkeypatch)


@pytest.fixture
def shared_cache(settings: Any) -> None:
    """A cache every process shares (Redis, a database of this test process's own), as deployed:
    writers' changes (solarena.changes) reach the pages only through one."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    # Readings are read again every REFRESH here, as without the change feed (test_change_feed
    # turns it on): these tests stand in for other processes' writers by writing to the cache.
    settings.CHANGE_FEED = False
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                    "LOCATION": f"redis://127.0.0.1:6379/{8 + worker}"},
        page_cache.LOCAL: {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                           "LOCATION": "pages-test"},
    }
    for cache in caches.all():
        cache.clear()
    changes.forget()
    page_stamps.forget_recent()


class CountedCache:
    """The shared cache, with the keys of every get_many written down (to stand in for a module's
    `cache`: monkeypatch.setattr(module, "cache", CountedCache()))."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(caches["default"], name)

    def get_many(self, keys: list[str]) -> dict[str, Any]:
        self.asked.append(list(keys))
        return caches["default"].get_many(keys)
