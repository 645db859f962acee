"""Generations of what pages show, kept in the shared cache: a writer moves a subject's generation
once its transaction commits, and remembers when; a page kept with the generations it was made at
is current while they are (pages.page_cache), and knows since when it is not.

Subjects: one problem x hardware board (its entries, their evaluations' figures and verdicts),
the participants' names, and the site (problems, hardware, categories; anything drop_all-like).
Writers name them (leaderboard.signals, evaluator.confirmations); after the commit `moved` is sent,
so a process that serves pages can make the changed ones again at once (pages.remakes).

Only a cache that every process shares (Redis) can carry a writer's word to the web processes:
with a per-process cache `tracked()` is False and pages fall back to their age alone."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import Signal

NAMES = "gen:names"
SITE = "gen:site"
REMEMBERED = 120  # seconds a change's time is kept: longer than any page is served unchecked
clock = time.time  # wall time, which every process agrees on; tests move it
log = logging.getLogger(__name__)
moved = Signal()  # sent with subjects=[...] once their generations have moved
PER_PROCESS = ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.dummy.DummyCache")


def board(problem_id: int, hardware_id: int) -> str:
    return f"gen:board:{problem_id}:{hardware_id}"


def tracked() -> bool:
    return settings.CACHES["default"]["BACKEND"] not in PER_PROCESS


def changed(*subjects: str) -> None:
    """Move the subjects' generations once the current transaction commits (at once outside one):
    a reader that read a generation before the commit has read the rows before it too."""
    if not subjects or not tracked():
        return
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _move(subjects), robust=True)
    else:
        _move(subjects)


def _move(subjects: tuple[str, ...]) -> None:
    now = clock()
    try:
        for subject in dict.fromkeys(subjects):
            cache.add(subject, 0, None)
            generation = cache.incr(subject)
            cache.set(f"{subject}@{generation}", now, REMEMBERED)
    except Exception:  # pages kept unchecked go stale within their MAX_AGE
        log.warning("page generations unavailable", exc_info=True)
        return
    moved.send(sender=None, subjects=list(subjects))


def generations(subjects: list[str]) -> dict[str, int] | None:
    """The subjects' generations now (0 where none moved yet); None when the cache does not answer."""
    try:
        found = cache.get_many(subjects)
    except Exception:
        log.warning("page generations unavailable", exc_info=True)
        return None
    return {subject: found.get(subject, 0) for subject in subjects}


def first_missed(seen: dict[str, int]) -> float | None:
    """When the first change after the generations `seen` was made; None when there was none; 0.0
    (long ago) when the cache does not answer or has forgotten it."""
    now = generations(list(seen))
    if now is None:
        return 0.0
    missed = [f"{subject}@{generation + 1}" for subject, generation in seen.items()
              if now[subject] != generation]
    if not missed:
        return None
    try:
        times = cache.get_many(missed)
    except Exception:
        log.warning("page generations unavailable", exc_info=True)
        return 0.0
    return min((times.get(key, 0.0) for key in missed), default=0.0)
