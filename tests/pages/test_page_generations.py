"""solarena.changes.generations: each subject's generation is read at most once per REFRESH in a
process, a page's stale subjects in one small round trip (never every subject the process knows);
this process's own moves show at once, another process's within REFRESH."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from solarena import changes
from tests.pages.conftest import CountedCache

pytestmark = pytest.mark.usefixtures("shared_cache")
BOARDS = [changes.board(problem, 1) for problem in range(80)]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountedCache:
    spy = CountedCache()
    monkeypatch.setattr(changes, "cache", spy)
    return spy


def test_a_page_reads_its_own_subjects_only(counted: CountedCache) -> None:
    for board in BOARDS:  # a process that has served 80 boards' pages
        changes.generations([board, changes.NAMES, changes.SITE])
    time.sleep(changes.REFRESH)
    counted.asked.clear()
    assert changes.generations([BOARDS[0], changes.NAMES, changes.SITE]) == {
        BOARDS[0]: 0, changes.NAMES: 0, changes.SITE: 0}
    assert counted.asked == [[BOARDS[0], changes.NAMES, changes.SITE]]
    changes.generations([BOARDS[0], changes.NAMES])
    assert len(counted.asked) == 1, "read again within REFRESH: no round trip"
    changes.generations([BOARDS[0], BOARDS[1]])
    assert counted.asked[1] == [BOARDS[1]], "only the subject not read lately"


def test_own_moves_at_once_others_within_refresh() -> None:
    assert changes.generations([BOARDS[0]]) == {BOARDS[0]: 0}
    changes.changed(BOARDS[0])  # this process's writer
    assert changes.generations([BOARDS[0]]) == {BOARDS[0]: 1}
    cache.incr(BOARDS[0])  # another process's writer
    assert changes.generations([BOARDS[0]]) == {BOARDS[0]: 1}
    time.sleep(changes.REFRESH)
    assert changes.generations([BOARDS[0]]) == {BOARDS[0]: 2}
