"""Stamps of what a page shows, kept in the shared cache, so a page kept under a version costs a
cache read rather than a query.

A page cached under an exact version (pages.page_cache.public_page(version=...)) needs a version
that changes whenever anything it shows does, and measuring that takes a query. A stamp keeps the
measure for LIFETIME seconds; a writer that changes what a subject's page shows drops the stamp
once its transaction commits, and the next reader measures again. So a change a writer reports
shows at once, and one no writer reports (a place in a queue moving, a worker going quiet, a read
that raced the commit) within LIFETIME seconds. `drop_all` drops every stamp at once (a change
that touches many subjects, such as revealing a problem's solutions).

A subject whose every change a writer reports (a submission none of whose evaluations waits in a
queue: what moves a queued one's place is other submissions' business) may keep its stamp for
SETTLED seconds, where the cache is shared by every process (solarena.changes.tracked): a drop
records its time, and a stamp measured before a drop is no stamp, however it raced the drop.

Without a cache that answers, every read measures: slower, never stale."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction

from solarena import change_feed, changes

LIFETIME = 1.0  # seconds a measure is trusted without a writer's word
SETTLED = 30.0  # the same, for a subject whose every change a writer reports
RECENT_AT_MOST = 500  # subjects whose last reading a process keeps (forgotten all at once past it)
GENERATION = "stamp-generation"  # moved by drop_all: a stamp of another generation is no stamp
clock = time.time  # wall time, which every web process agrees on; tests move it
log = logging.getLogger(__name__)
_recent: dict[str, tuple[float, dict[str, Any]]] = {}  # subject -> (time.monotonic() read at, what was read)


def submission(submission_id: int) -> str:
    """The subject of a submission's pages."""
    return f"stamp:submission:{submission_id}"


def read(subject: str, measure: Callable[[], tuple[str | None, bool]]) -> str | None:
    """The subject's stamp: the last measure, while it is younger than its lifetime and no writer has
    dropped it since; else measure() now (the stamp, and whether the subject is settled: every
    change to it reported), kept for the next reader."""
    try:
        kept = _kept(subject)
        value = _valid(subject, kept)
        recent = _recent.get(subject)
        if value is None and recent is not None and time.monotonic() - recent[0] >= changes.REFRESH:
            kept = _kept(subject, again=True)  # kept on the feed's word: another process may have measured it
            value = _valid(subject, kept)
    except Exception:  # any backend's failure: measure every time
        log.warning("page stamps unavailable", exc_info=True)
        return measure()[0]
    if value is not None:
        return value
    made = clock()
    value, settled = measure()
    lifetime = SETTLED if settled and changes.tracked() else LIFETIME
    try:
        cache.set(subject, (made, kept.get(GENERATION, 0), lifetime, value), lifetime + 1)
    except Exception:
        log.warning("page stamps unavailable", exc_info=True)
    _recent.pop(subject, None)  # read again, with any drop made while measuring
    return value


def _valid(subject: str, kept: dict[str, Any]) -> str | None:
    stamp = kept.get(subject)
    if stamp is None:
        return None
    made, its_generation, lifetime, value = stamp
    if its_generation == kept.get(GENERATION, 0) and made >= kept.get(_dropped(subject), 0.0) \
            and 0 <= clock() - made < lifetime:
        return value
    return None


def _kept(subject: str, again: bool = False) -> dict[str, Any]:
    """What the shared cache holds of the subject (its stamp, the stamps' generation, its last
    drop), as this process read it at most changes.REFRESH seconds ago, or longer ago while the
    change feed vouches for it (solarena.change_feed): one small round trip per subject read (a
    drop here forgets the subject at once; one elsewhere shows when it is heard, or REFRESH later
    without the feed). Each subject is read alone: reading every subject read lately at once cost
    more than a millisecond at a few dozen subjects, on the request that happened to do it.
    `again`: read it now whatever this process keeps."""
    recent = _recent.get(subject)
    if not again and recent is not None and (time.monotonic() - recent[0] < changes.REFRESH
                                             or change_feed.trusted(subject, recent[0])):
        return recent[1]
    read_at = time.monotonic()
    found = cache.get_many([subject, GENERATION, _dropped(subject)])
    if changes.tracked():  # a cache of this process's own is read without a round trip
        if len(_recent) >= RECENT_AT_MOST:
            _recent.clear()
        _recent[subject] = (read_at, found)
    return found


def drop(*subjects: str) -> None:
    """Forget these stamps now (for readers inside the current transaction) and again once it
    commits (a reader between the two may have kept what it saw before the commit)."""
    def forget() -> None:
        for subject in subjects:
            _recent.pop(subject, None)
        try:
            cache.delete_many(list(subjects))
            cache.set_many({_dropped(subject): clock() for subject in subjects}, SETTLED + 1)
        except Exception:  # the stamps die within LIFETIME anyway
            log.warning("page stamps unavailable", exc_info=True)
            return
        change_feed.publish(subjects)

    _now_and_on_commit(forget)


def drop_all() -> None:
    """Forget every stamp, as `drop` does."""
    def forget() -> None:
        _recent.clear()
        try:
            cache.add(GENERATION, 0, None)
            cache.incr(GENERATION)
        except Exception:
            log.warning("page stamps unavailable", exc_info=True)
            return
        change_feed.publish([change_feed.EVERYTHING])

    _now_and_on_commit(forget)


def forget_recent() -> None:
    """Read every stamp afresh next time (tests: another test's cache)."""
    _recent.clear()


def _dropped(subject: str) -> str:
    return f"{subject}:dropped"


def _now_and_on_commit(forget: Callable[[], None]) -> None:
    forget()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(forget, robust=True)
