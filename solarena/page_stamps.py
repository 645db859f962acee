"""Stamps of what a page shows, kept in the shared cache, so a page kept under a version costs a
cache read rather than a query.

A page cached under an exact version (pages.page_cache.public_page(version=...)) needs a version
that changes whenever anything it shows does, and measuring that takes a query. A stamp keeps the
measure for LIFETIME seconds; a writer that changes what a subject's page shows drops the stamp
once its transaction commits, and the next reader measures again. So a change a writer reports
shows at once, and one no writer reports (a place in a queue moving, a worker going quiet, a read
that raced the commit) within LIFETIME seconds. `drop_all` drops every stamp at once (a change
that touches many subjects, such as revealing a problem's solutions).

Without a cache that answers, every read measures: slower, never stale."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.core.cache import cache
from django.db import transaction

LIFETIME = 1.0  # seconds a measure is trusted without a writer's word
GENERATION = "stamp-generation"  # moved by drop_all: a stamp of another generation is no stamp
clock = time.time  # wall time, which every web process agrees on; tests move it
log = logging.getLogger(__name__)


def submission(submission_id: int) -> str:
    """The subject of a submission's pages."""
    return f"stamp:submission:{submission_id}"


def read(subject: str, measure: Callable[[], str | None]) -> str | None:
    """The subject's stamp: the last measure, while it is younger than LIFETIME and no writer has
    dropped it; else measure() now, kept for the next reader."""
    try:
        kept = cache.get_many([subject, GENERATION])
    except Exception:  # any backend's failure: measure every time
        log.warning("page stamps unavailable", exc_info=True)
        return measure()
    generation = kept.get(GENERATION, 0)
    stamp = kept.get(subject)
    if stamp is not None:
        made, its_generation, value = stamp
        if its_generation == generation and 0 <= clock() - made < LIFETIME:
            return value
    made = clock()
    value = measure()
    try:
        cache.set(subject, (made, generation, value), LIFETIME + 1)
    except Exception:
        log.warning("page stamps unavailable", exc_info=True)
    return value


def drop(*subjects: str) -> None:
    """Forget these stamps now (for readers inside the current transaction) and again once it
    commits (a reader between the two may have kept what it saw before the commit)."""
    def forget() -> None:
        try:
            cache.delete_many(list(subjects))
        except Exception:  # the stamps die within LIFETIME anyway
            log.warning("page stamps unavailable", exc_info=True)

    _now_and_on_commit(forget)


def drop_all() -> None:
    """Forget every stamp, as `drop` does."""
    def forget() -> None:
        try:
            cache.add(GENERATION, 0, None)
            cache.incr(GENERATION)
        except Exception:
            log.warning("page stamps unavailable", exc_info=True)

    _now_and_on_commit(forget)


def _now_and_on_commit(forget: Callable[[], None]) -> None:
    forget()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(forget, robust=True)
