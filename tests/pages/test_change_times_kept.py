"""solarena.changes.first_missed: a copy found behind costs one round trip to the shared cache
(its subjects' generations and the time of the change after each generation it saw, together),
and a change's time, which never changes, is read once per process."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from solarena import changes
from tests.pages.conftest import CountedCache

pytestmark = pytest.mark.usefixtures("shared_cache")
BOARD, OTHER = changes.board(1, 1), changes.board(2, 1)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountedCache:
    spy = CountedCache()
    monkeypatch.setattr(changes, "cache", spy)
    return spy


def another_process_moves(subject: str, at: float) -> None:
    """What another process's writer leaves in the shared cache (changes._move)."""
    cache.add(subject, 0, None)
    generation = cache.incr(subject)
    cache.set(f"{subject}@{generation}", at, changes.REMEMBERED)


def test_a_copy_behind_costs_one_round_trip(counted: CountedCache) -> None:
    seen = changes.generations([BOARD, OTHER])
    another_process_moves(BOARD, at=1000.0)
    time.sleep(changes.REFRESH)
    counted.asked.clear()
    assert changes.first_missed(seen) == 1000.0
    assert counted.asked == [[BOARD, OTHER, f"{BOARD}@1", f"{OTHER}@1"]], "one round trip"
    assert changes.first_missed(seen) == 1000.0
    assert len(counted.asked) == 1, "within REFRESH: nothing read again"
    time.sleep(changes.REFRESH)
    assert changes.first_missed(seen) == 1000.0
    assert counted.asked[1] == [BOARD, OTHER, f"{OTHER}@1"], "the time read is kept; the rest asked"


def test_the_first_change_after_what_was_seen_counts(counted: CountedCache) -> None:
    seen = changes.generations([BOARD, OTHER])
    another_process_moves(OTHER, at=2000.0)
    another_process_moves(BOARD, at=3000.0)
    another_process_moves(BOARD, at=4000.0)
    time.sleep(changes.REFRESH)
    assert changes.first_missed(seen) == 2000.0
    assert changes.first_missed({BOARD: 1, OTHER: 1}) == 4000.0  # a copy made after the first two
    assert changes.first_missed({BOARD: 2, OTHER: 1}) is None


def test_a_time_the_cache_has_forgotten_is_long_ago(counted: CountedCache) -> None:
    seen = changes.generations([BOARD])
    another_process_moves(BOARD, at=5000.0)
    cache.delete(f"{BOARD}@1")
    time.sleep(changes.REFRESH)
    assert changes.first_missed(seen) == 0.0
    assert changes.first_missed(seen) == 0.0, "an absent time is not kept as if it were one"
    assert counted.asked[-1] == [f"{BOARD}@1"]


def test_own_moves_keep_their_time(counted: CountedCache) -> None:
    seen = changes.generations([BOARD])
    before = changes.clock()
    changes.changed(BOARD)
    counted.asked.clear()
    missed = changes.first_missed(seen)
    assert missed is not None and missed >= before
    assert counted.asked == [], "this process's writer knows its own change and when"
